package config

import (
	"strings"
	"testing"
)

// A UTF-8 byte order mark at the start (Notepad writes one) is accepted,
// and positions are counted as an editor shows them.
func TestByteOrderMark(t *testing.T) {
	if _, err := Parse("bom.toml", []byte("\xEF\xBB\xBF"+baseUDPS)); err != nil {
		t.Fatalf("with a BOM: %v", err)
	}
	_, err := Parse("bom.toml", []byte("\xEF\xBB\xBF"+edit(t, baseUDPS, "[App]", "[App]\nColour = 1")))
	if err == nil || !strings.HasPrefix(err.Error(), "bom.toml:2:1: App: Colour: unknown key") {
		t.Errorf("error after a BOM: %v", err)
	}
}

// A name of 1 MB is quoted short in every message that names it, and
// nothing from the file makes an error line unbounded.
func TestHugeNamesAreClippedInMessages(t *testing.T) {
	huge := strings.Repeat("N", 1<<20)
	for name, src := range map[string]string{
		"signal name":  edit(t, baseUDPS, `Name = "Ch1"`, `Name = "`+huge+`"`),
		"thread name":  edit(t, baseUDPS, `Name = "RT1"`, `Name = "`+huge+`\u001b"`+"\nPriority = 200"),
		"unknown key":  edit(t, baseUDPS, "[App]", "[App]\n"+huge+" = 1"),
		"string value": edit(t, baseUDPS, `Type = "float32"`, `Type = "`+huge+`"`),
		"datasource":   edit(t, baseUDPS, `DataSource = "S"`, `DataSource = "`+huge+`"`),
		"quoted key":   edit(t, baseUDPS, "[App]", "[App]\n\"\\u001b[2J"+huge+"\" = 1"),
	} {
		_, err := Parse("big.toml", []byte(src))
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		for _, line := range strings.Split(err.Error(), "\n") {
			if len(line) > 600 || strings.ContainsRune(line, 0x1b) {
				t.Errorf("%s: line of %d bytes: %.300q", name, len(line), line)
			}
		}
		if !strings.Contains(err.Error(), "…(1048") {
			t.Errorf("%s: no length marker in %.600s", name, err)
		}
	}
}
