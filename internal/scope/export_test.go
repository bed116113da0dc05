package scope

// PageHash is pageHash, for the browser test that takes the screenshot.
var PageHash = pageHash
