package scope

import "embed"

// webFS holds the page: index.html, scope.js, scope.css and the vendored
// uPlot (web/vendor/uplot, MIT). Nothing is fetched from elsewhere, so the
// scope works on a machine without internet.
//
//go:embed web
var webFS embed.FS
