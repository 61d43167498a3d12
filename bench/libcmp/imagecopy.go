package libcmp

// Copied from tools/files/image.go at 42c6106, to be measured beside golang.org/x/image/draw.

import (
	"image"
	"image/draw"
)

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
