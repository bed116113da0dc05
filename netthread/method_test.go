package netthread

import "testing"

func TestSendMethodText(t *testing.T) {
	for _, m := range []SendMethod{MethodAuto, MethodGSO, MethodSendmmsg, MethodSendto} {
		text, err := m.MarshalText()
		if err != nil || string(text) != m.String() {
			t.Errorf("%v: MarshalText %q, %v", m, text, err)
		}
		var got SendMethod
		if err := got.UnmarshalText(text); err != nil || got != m {
			t.Errorf("%v: UnmarshalText %v, %v", m, got, err)
		}
	}
	if s := MethodSendto.String(); s != "sendto" {
		t.Errorf("MethodSendto is %q, want the name the docs use, sendto", s)
	}
	var m SendMethod
	if err := m.UnmarshalText([]byte("loop")); err == nil || err.Error() != `netthread: unknown send method "loop" (want auto, gso, sendmmsg or sendto)` {
		t.Errorf("UnmarshalText(loop): %v", err)
	}
	if _, err := SendMethod(9).MarshalText(); err == nil {
		t.Error("SendMethod(9).MarshalText accepted")
	}
}
