package configs_test

import (
	"fmt"
	"io/fs"

	"github.com/streamerd/streamerd/configs"
)

// Example lists the example configurations streamerd embeds; the daemon
// runs Default when no -config is given.
func Example() {
	fmt.Println(configs.Names())
	b, err := fs.ReadFile(configs.FS, "app.toml")
	fmt.Println(len(b) > 0, err, len(configs.Default) > 0)
	// Output:
	// [app.toml burst.toml flatudp.toml flatudp_text.toml flatudp_trigger.toml rd100s.toml]
	// true <nil> true
}
