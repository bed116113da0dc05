package config

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/internal/httpguard"
	"github.com/streamerd/streamerd/rt"
	"github.com/streamerd/streamerd/rt/cpu"
)

// warn collects the legal but risky choices of the file, positioned like
// errors. They never fail Parse.
func (d *decoder) warn() {
	f := d.f
	w := func(path, msg string) { f.Warnings = append(f.Warnings, f.errAt(path, msg)) }
	spins := func(th *Thread) bool {
		return th.Priority > 0 && (th.SleepNature == SleepBusy || th.SleepNature == SleepHybrid)
	}
	for ti := range f.Threads {
		th := &f.Threads[ti]
		p := "Threads[" + strconv.Itoa(ti) + "]"
		for _, msg := range threadWarnings(th) {
			w(p+"."+f.threadWarningKey(p, th), msg)
		}
		if !spins(th) {
			continue
		}
		for tj := 0; tj < ti; tj++ {
			o := &f.Threads[tj]
			if spins(o) && (th.CPUMask == 0 || o.CPUMask == 0 || th.CPUMask&o.CPUMask != 0) {
				w(p+".CPUMask", "this thread and thread "+quote(o.Name)+" both spin under SCHED_FIFO and may share a CPU: they can starve each other; pin them to disjoint CPUs")
			}
		}
	}
	if rp := f.App.RuntimePriority; rp > 0 {
		for ti := range f.Threads {
			if p := f.Threads[ti].Priority; p > 0 && p <= rp {
				w("Threads["+strconv.Itoa(ti)+"].Priority", fmt.Sprintf("%d is not above App.RuntimePriority %d: the runtime's threads compete with this RT thread as equals; give the RT thread the higher priority", p, rp))
			}
		}
	}
	if msg := HTTPExposure(&f.App, LoopbackHost(f.App.HTTPAddress)); msg != "" {
		w("App.HTTPAddress", msg)
	}
	if msg := ScopeExposure(&f.App, LoopbackHost(f.App.ScopeAddress)); msg != "" {
		w("App.ScopeAddress", msg)
	}
	if p := f.App.HTTPTokenFile; p != "" {
		if msg := httpguard.TokenFileWarning(p); msg != "" {
			w("App.HTTPTokenFile", msg)
		}
	}
	for di := range f.DataSources {
		d := &f.DataSources[di]
		spin, mask := time.Duration(0), cpu.Mask(0)
		switch {
		case d.UDPStreamer != nil:
			spin, mask = d.UDPStreamer.NetworkSpin, d.UDPStreamer.CPUMask
		case d.FlatUDP != nil:
			spin, mask = d.FlatUDP.NetworkSpin, d.FlatUDP.CPUMask
		case d.Replay != nil:
			spin, mask = d.Replay.Server.NetworkSpin, d.Replay.Server.CPUMask
		}
		if spin > 0 && mask == 0 {
			w("DataSources["+strconv.Itoa(di)+"].NetworkSpin", "a network thread that spins without CPUMask takes CPU time from whatever shares its CPU, the RT thread included; pin it to a CPU of its own")
		}
	}
	for di := range f.DataSources {
		var u *udpstreamer.Config
		if d := f.DataSources[di].UDPStreamer; d != nil {
			u = &d.Config
		}
		if r := f.DataSources[di].Replay; r != nil {
			u = &r.Server
		}
		if u == nil || len(u.AllowedClients) > 0 {
			continue
		}
		if a, err := netip.ParseAddr(u.Address); err == nil && a.IsLoopback() {
			continue
		}
		w("DataSources["+strconv.Itoa(di)+"].AllowedClients", "any host that can reach the port can start a stream, and a spoofed CONNECT directs it at a third party; list the allowed clients")
	}
}

// LoopbackHost reports whether the host of hostPort is a loopback address
// literal or "localhost". Any other name, and an empty or unspecified host
// (":9100", "0.0.0.0:9100"), is not known to be loopback.
func LoopbackHost(hostPort string) bool {
	host, _, err := net.SplitHostPort(hostPort)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// HTTPExposure returns the warning for the HTTP endpoint of app listening
// on a loopback address or not: what is open to the network without a
// token, or "" when nothing is.
func HTTPExposure(app *App, loopback bool) string {
	switch {
	case app.HTTPAddress == "" || loopback || app.HTTPTokenFile != "":
		return ""
	case app.HTTPInsecureControl:
		return "HTTP is not on a loopback address and has no HTTPTokenFile: with HTTPInsecureControl, anyone who can reach it can force signals and degrade streams"
	}
	return "HTTP is not on a loopback address and has no HTTPTokenFile: /metrics and /status are open to the network, and /force, /release and /degrade are refused (set HTTPTokenFile to serve them with a bearer token)"
}

// ScopeExposure returns the warning for the scope of app listening on a
// loopback address or not: "" when it is, or when HTTPTokenFile covers it.
func ScopeExposure(app *App, loopback bool) string {
	if app.ScopeAddress == "" || loopback || app.HTTPTokenFile != "" {
		return ""
	}
	return "the scope is not on a loopback address and has no HTTPTokenFile: anyone who can reach it sees every signal of the UDPStreamer datasources (set HTTPTokenFile: the page then asks for the token)"
}

// threadWarnings returns rt.Validate's warnings for the thread th, without
// the thread's name, which the position gives: the scheduling rules (a
// spinning SCHED_FIFO thread and the kernel's real-time throttling, a
// short period with Default sleep) are rt's.
func threadWarnings(th *Thread) []string {
	ws, err := rt.Validate(rt.Config{Name: th.Name, Period: th.Period, CPUMask: th.CPUMask, Priority: th.Priority,
		SleepNature: th.SleepNature, SleepPercentage: th.SleepPercentage})
	if err != nil { // the file's own checks have reported it
		return nil
	}
	for i, msg := range ws {
		ws[i] = strings.TrimPrefix(msg, th.Name+": ")
	}
	return ws
}

// threadWarningKey is the key rt.Validate's warnings about the thread th
// at path are positioned at: each is about how the thread waits for its
// period, so the first of its sleep keys (or period keys, with Default
// sleep) that the file spells out.
func (f *File) threadWarningKey(path string, th *Thread) string {
	keys := []string{"Period", "Frequency"}
	switch th.SleepNature {
	case SleepHybrid:
		keys = []string{"SleepPercentage", "SleepNature"}
	case SleepBusy:
		keys = []string{"SleepNature"}
	}
	for _, k := range keys {
		if f.spelled(path + "." + k) {
			return k
		}
	}
	return keys[len(keys)-1]
}
