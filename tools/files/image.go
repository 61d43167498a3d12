package files

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"os"

	"github.com/reinsdev/reins/tool"
)

const (
	// maxImageBytes keeps an image's base64 form under the model API's 5 MB image limit.
	maxImageBytes = 3_750_000
	// maxImageSide is the longest side an image is sent with; larger ones are scaled down,
	// which the model API would do anyway.
	maxImageSide = 2000
	// maxImageFileBytes is the largest image file Read decodes at all.
	maxImageFileBytes = 100 << 20
)

// sniffImage names the media type of an image from its first bytes.
func sniffImage(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return "image/jpeg"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "image/gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

func (r *reader) readImage(f *os.File, fi os.FileInfo, abs string, env *tool.Env) (tool.Result, error) {
	if fi.Size() > maxImageFileBytes {
		return failed("Image file is too large (%s). Maximum supported size is %s.", tool.FormatSize(fi.Size()), tool.FormatSize(maxImageFileBytes))
	}
	raw, err := io.ReadAll(f)
	if err != nil {
		return tool.Result{}, fmt.Errorf("reading %s: %w", abs, err)
	}
	mt := sniffImage(raw)
	if mt == "" {
		if len(raw) == 0 {
			return failed("Image file %s is empty.", abs)
		}
		return failed("%s does not contain a PNG, JPEG, GIF or WEBP image.", abs)
	}
	data, outType, w, h, err := fitImage(raw, mt)
	if err != nil {
		return tool.Result{}, fmt.Errorf("reading image %s: %w", abs, err)
	}
	if env.Files != nil {
		env.Files.Record(abs, tool.FileRead{ModTime: fi.ModTime(), Hash: hashBytes(raw)})
	}
	out := ReadOutput{Type: "image", FilePath: abs, MediaType: outType, Width: w, Height: h}
	return tool.Result{
		Content: []tool.Content{{Type: "image", MediaType: outType, Data: base64.StdEncoding.EncodeToString(data)}},
		Output:  out,
	}, nil
}

// fitImage returns the image as it can be sent: unchanged when it is small enough, else
// scaled down (PNG and GIF become PNG, JPEG stays JPEG) until it fits. WEBP cannot be decoded
// here, so a WEBP that is too large is refused.
func fitImage(raw []byte, mt string) (data []byte, outType string, w, h int, err error) {
	if mt == "image/webp" {
		if len(raw) > maxImageBytes {
			return nil, "", 0, 0, fmt.Errorf("the WEBP image is %s, more than the %s that can be sent; convert it to PNG or JPEG first", tool.FormatSize(int64(len(raw))), tool.FormatSize(maxImageBytes))
		}
		return raw, mt, 0, 0, nil
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		return nil, "", 0, 0, err
	}
	if len(raw) <= maxImageBytes && cfg.Width <= maxImageSide && cfg.Height <= maxImageSide {
		return raw, mt, cfg.Width, cfg.Height, nil
	}
	var img image.Image
	switch mt {
	case "image/png":
		img, err = png.Decode(bytes.NewReader(raw))
	case "image/jpeg":
		img, err = jpeg.Decode(bytes.NewReader(raw))
	case "image/gif":
		img, err = gif.Decode(bytes.NewReader(raw))
	}
	if err != nil {
		return nil, "", 0, 0, err
	}
	side := maxImageSide
	for {
		small := scaleDown(img, side)
		var buf bytes.Buffer
		if mt == "image/jpeg" {
			err = jpeg.Encode(&buf, small, &jpeg.Options{Quality: 85})
			outType = "image/jpeg"
		} else {
			err = png.Encode(&buf, small)
			outType = "image/png"
		}
		if err != nil {
			return nil, "", 0, 0, err
		}
		b := small.Bounds()
		if buf.Len() <= maxImageBytes || side <= 64 {
			return buf.Bytes(), outType, b.Dx(), b.Dy(), nil
		}
		side = side * 3 / 4
	}
}

// scaleDown shrinks img so that neither side exceeds side, averaging the source pixels each
// target pixel covers.
func scaleDown(img image.Image, side int) *image.NRGBA {
	b := img.Bounds()
	sw, sh := b.Dx(), b.Dy()
	scale := max(float64(sw)/float64(side), float64(sh)/float64(side), 1)
	tw, th := max(int(float64(sw)/scale), 1), max(int(float64(sh)/scale), 1)
	src := image.NewNRGBA(image.Rect(0, 0, sw, sh))
	draw.Draw(src, src.Bounds(), img, b.Min, draw.Src)
	dst := image.NewNRGBA(image.Rect(0, 0, tw, th))
	for ty := range th {
		y0, y1 := ty*sh/th, max((ty+1)*sh/th, ty*sh/th+1)
		for tx := range tw {
			x0, x1 := tx*sw/tw, max((tx+1)*sw/tw, tx*sw/tw+1)
			var sum [4]int
			for y := y0; y < y1; y++ {
				row := src.Pix[y*src.Stride:]
				for x := x0; x < x1; x++ {
					p := row[4*x : 4*x+4]
					for i := range sum {
						sum[i] += int(p[i])
					}
				}
			}
			n := (y1 - y0) * (x1 - x0)
			d := dst.Pix[ty*dst.Stride+4*tx:]
			for i := range sum {
				d[i] = uint8(sum[i] / n)
			}
		}
	}
	return dst
}
