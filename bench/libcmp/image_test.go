//go:build unix

package libcmp

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"
	"testing"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/sys/unix"
)

// photo makes a w×h image with smooth gradients, noise and sharp edges, like a screenshot
// with a photo in it.
func photo(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for y := range h {
		for x := range w {
			v := uint8(128 + 100*math.Sin(float64(x)/37)*math.Cos(float64(y)/53))
			if (x/40+y/40)%2 == 0 {
				v = 255 - v
			}
			n := uint8(r.IntN(16))
			img.Set(x, y, color.NRGBA{v + n, uint8(x * 255 / w), uint8(y * 255 / h), 255})
		}
	}
	return img
}

func lib(k xdraw.Interpolator) func(image.Image, int) *image.NRGBA {
	return func(img image.Image, side int) *image.NRGBA {
		b := img.Bounds()
		sw, sh := b.Dx(), b.Dy()
		scale := max(float64(sw)/float64(side), float64(sh)/float64(side), 1)
		tw, th := max(int(float64(sw)/scale), 1), max(int(float64(sh)/scale), 1)
		dst := image.NewNRGBA(image.Rect(0, 0, tw, th))
		k.Scale(dst, dst.Bounds(), img, b, xdraw.Src, nil)
		return dst
	}
}

var scalers = []struct {
	name string
	f    func(image.Image, int) *image.NRGBA
}{
	{"ours", scaleDown},
	{"ApproxBiLinear", lib(xdraw.ApproxBiLinear)},
	{"BiLinear", lib(xdraw.BiLinear)},
	{"CatmullRom", lib(xdraw.CatmullRom)},
}

func cpu() int64 {
	var ru unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// decoded source images as Read gets them: PNG decodes to NRGBA/RGBA, JPEG to YCbCr.
func sources(b *testing.B) map[string]image.Image {
	p := photo(6000, 4000)
	var jb bytes.Buffer
	jpeg.Encode(&jb, p, &jpeg.Options{Quality: 90})
	j, err := jpeg.Decode(&jb)
	if err != nil {
		b.Fatal(err)
	}
	var pb bytes.Buffer
	png.Encode(&pb, p)
	pi, err := png.Decode(&pb)
	if err != nil {
		b.Fatal(err)
	}
	return map[string]image.Image{"jpeg": j, "png": pi}
}

// BenchmarkScale scales a 6000x4000 image, decoded from JPEG and from PNG as Read decodes
// it, to 2000 px; cpu-ms/op is the process's CPU time, which a loaded machine does not inflate.
func BenchmarkScale(b *testing.B) {
	src := sources(b)
	for _, kind := range []string{"jpeg", "png"} {
		for _, s := range scalers {
			b.Run(kind+"/"+s.name, func(b *testing.B) {
				c0 := cpu()
				for b.Loop() {
					s.f(src[kind], 2000)
				}
				b.ReportMetric(float64(cpu()-c0)/float64(b.N)/1e6, "cpu-ms/op")
			})
		}
	}
}

// TestScaleError logs each filter's mean absolute error against CatmullRom at a 3x
// reduction: a measurement for the table in docs/architecture.md, not a verdict.
func TestScaleError(t *testing.T) {
	p := photo(3000, 2000)
	ref := lib(xdraw.CatmullRom)(p, 2000/3)
	for _, s := range scalers {
		out := s.f(p, 2000/3)
		var sum float64
		for i := range out.Pix {
			sum += math.Abs(float64(out.Pix[i]) - float64(ref.Pix[i]))
		}
		t.Logf("%s: %v, MAE vs CatmullRom %.2f", s.name, out.Bounds().Size(), sum/float64(len(out.Pix)))
	}
}
