package audit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/boundedfile"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/settings"
	"github.com/reinsdev/reins/settings/policy"
)

func NewCmdPolicy(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Sign central policy bundles, and replay a proposed policy against recorded sessions",
		Long: `An organisation's policy bundle is a settings document with a policyVersion, signed with an
ed25519 key and served with its signature at URL.sig; managed settings name it with
"policyBundle": {"url", "publicKey", "required"} (docs/policy.md).`,
	}
	cmd.AddCommand(newCmdPolicyKeygen(f, nil), newCmdPolicySign(f, nil), newCmdPolicyReplay(f, nil))
	return cmd
}

type keygenOptions struct {
	f   *cmdutil.Factory
	out string
}

func newCmdPolicyKeygen(f *cmdutil.Factory, runF func(*keygenOptions) error) *cobra.Command {
	opts := &keygenOptions{f: f}
	cmd := &cobra.Command{
		Use:   "keygen --out FILE",
		Short: "Make a signing key: the private key goes to FILE, the public key is printed",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return keygenRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.out, "out", "", "the private key file to write (mode 0600; never overwritten)")
	return cmd
}

func keygenRun(ctx context.Context, opts *keygenOptions) error {
	f := opts.f
	if opts.out == "" {
		return cmdutil.UsageErrorf("--out FILE is required: where to write the private key")
	}
	pub, priv, err := policy.Keygen()
	if err != nil {
		return err
	}
	file, err := os.OpenFile(opts.out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists: refusing to overwrite a key", opts.out)
	}
	if err != nil {
		return err
	}
	if _, err := file.Write(priv); err != nil {
		file.Close()
		return err
	}
	if err := file.Close(); err != nil {
		return err
	}
	fmt.Fprintf(f.Out, "%s\n", pub)
	fmt.Fprintf(f.ErrOut, "Wrote the private key to %s (keep it off the machines that run reins); the public key above goes in policyBundle.publicKey.\n", opts.out)
	return nil
}

type signOptions struct {
	f       *cmdutil.Factory
	args    []string
	keyFile string
	out     string
}

func newCmdPolicySign(f *cmdutil.Factory, runF func(*signOptions) error) *cobra.Command {
	opts := &signOptions{f: f}
	cmd := &cobra.Command{
		Use:   "sign --key FILE BUNDLE.json",
		Short: "Sign a policy bundle: writes the detached signature to BUNDLE.json.sig",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.args = args
			if runF != nil {
				return runF(opts)
			}
			return signRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.keyFile, "key", "", "the private key file (reins policy keygen)")
	cmd.Flags().StringVar(&opts.out, "out", "", "where to write the signature (default BUNDLE.json.sig)")
	return cmd
}

func signRun(ctx context.Context, opts *signOptions) error {
	f := opts.f
	if opts.keyFile == "" {
		return cmdutil.UsageErrorf("--key FILE is required (reins policy keygen makes one)")
	}
	key, err := boundedfile.Read(ctx, opts.keyFile, boundedfile.Limits{MaxBytes: 64 << 10, Kind: "key file"})
	if err != nil {
		return err
	}
	doc, err := settings.ReadFile(ctx, opts.args[0])
	if err != nil {
		return err
	}
	sig, err := policy.Sign(key, doc)
	if err != nil {
		return fmt.Errorf("%s: %w", opts.args[0], err)
	}
	if opts.out == "" {
		opts.out = opts.args[0] + ".sig"
	}
	if err := os.WriteFile(opts.out, sig, 0o644); err != nil {
		return err
	}
	v, _ := policy.Version(doc)
	pub, _ := policy.PublicKeyOf(key)
	fmt.Fprintf(f.Out, "Signed %s (policyVersion %d) with the key %s: serve %s beside it as <url>.sig\n", opts.args[0], v, pub, opts.out)
	return nil
}
