package configs_test

import (
	"fmt"
	"io/fs"

	"github.com/streamerd/streamerd/configs"
)

// Example lists the example configurations streamerd embeds; the daemon
// runs app.toml when no -config is given.
func Example() {
	names, err := fs.Glob(configs.FS, "*.toml")
	fmt.Println(names, err)
	b, err := fs.ReadFile(configs.FS, "app.toml")
	fmt.Println(len(b) > 0, err)
	// Output:
	// [app.toml burst.toml flatudp.toml flatudp_text.toml flatudp_trigger.toml rd100s.toml] <nil>
	// true <nil>
}
