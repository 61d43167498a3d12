package pathrule_test

import (
	"fmt"

	"github.com/reinsdev/reins/pathrule"
)

func Example() {
	// Edit(/secrets/**) from project settings: the permission engine takes
	// the project root as the base and keeps the leading "/" as the anchor.
	p, err := pathrule.Compile("/secrets/**")
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Match("secrets", true))
	fmt.Println(p.Match("Secrets/prod/key.pem", false))
	fmt.Println(p.Match("app/secrets/key.pem", false))

	// Read(*.env), relative to the current directory: no anchor, any depth.
	env, _ := pathrule.Compile("*.env")
	fmt.Println(env.Match("services/api/.ENV", false))
	// Output:
	// true
	// true
	// false
	// true
}
