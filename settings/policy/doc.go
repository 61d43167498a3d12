// Package policy fetches, verifies and caches an organisation's signed policy bundle: a
// settings document that Reins applies as policy settings, named by the managed settings'
// policyBundle key (url, publicKey, required).
//
// # What is trusted
//
// The signature, never the transport. The document at URL is accepted only with a detached
// ed25519 signature at URL+".sig" (the 64 raw bytes, or their standard base64) that verifies
// under the configured public key (standard base64 of the 32-byte key). A plain http:// mirror
// on a loopback address serves as well as https.
//
// # Versions and rollback
//
// A bundle must carry a top-level "policyVersion", a positive whole number the organisation
// raises with every change. The last verified bundle is cached (document and signature) under
// the user's config folder, per URL and key. A fetched bundle whose version is lower than the
// cached one's is refused, and so is one with the cached version but other bytes: a mirror
// or an attacker on the network cannot bring back an older policy that was signed once. The
// cache itself is verified again on every use, so a changed cache is no bundle.
//
// # Failure
//
// [Fetch] returns the fetched bundle when it verifies and does not roll back. When the server
// cannot be reached it returns the verified cached copy with a [Result.Warning], or an error
// when there is none. A fetched bundle that does not verify or rolls back is an error when
// [Config.Required] (it is an attack or a mistake someone must look at, and the caller stops),
// and otherwise the cached copy with a warning, or an error when there is none. The caller
// stops on an error when the bundle is required and warns otherwise.
package policy
