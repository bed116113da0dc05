// C reference for streamerd/quant's encode kernels, timed on the same
// 1000-sample input. Built and run by cref_test.go.
//
// The float64 kernels do the same arithmetic as quant (float64 sub, mul, add
// of 1.5*2^52 + lowest code, clamp by bit pattern), so their output must be
// quant's; build with -ffp-contract=off so no multiply-add is fused. The
// float32 kernels are what a C programmer writes for float32 samples: clamp
// to the range (NaN to RangeMin), scale, round to nearest, all in float32.
// They are faster and not exact: near a tie between two codes float32
// arithmetic may pick the other code, so their output may differ from
// quant's in a few codes (counted against the float64 kernel).
//
// Prints one line per kernel and pair:
// "<kernel> <src>-<wire> <ns per sample> <FNV-1a of the output> <codes differing from f64>"
// where kernel is f64 (float64 arithmetic, both sources) or f32 (float32
// arithmetic, float32 source).
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define N 1000

typedef struct {
	double min, scale, l, magic;
	uint64_t lo, hi;
} quant;

static quant mk(int wire, double min, double max) {
	static const double levels[] = {0, 255, 254, 65535, 65534};
	static const double lowest[] = {0, 0, -127, 0, -32767};
	quant q;
	q.min = min;
	q.l = levels[wire];
	q.scale = q.l / (max - min);
	q.magic = 0x1.8p52 + lowest[wire];
	double hi = q.magic + q.l;
	memcpy(&q.lo, &q.magic, 8);
	memcpy(&q.hi, &hi, 8);
	return q;
}

static inline uint64_t idx(const quant *q, double v) {
	double t = (v - q->min) * q->scale;
	double s = t + q->magic;
	uint64_t r;
	memcpy(&r, &s, 8);
	r = t > q->l ? q->hi : r;
	r = !(t >= 0) ? q->lo : r;
	return r;
}

// STORE writes code c of sample i to dst as SIZE bytes, little-endian.
#define STORE(dst, SIZE, i, c)                                                  \
	do {                                                                    \
		(dst)[(SIZE) * (i)] = (uint8_t)(c);                             \
		if ((SIZE) == 2)                                                \
			(dst)[(SIZE) * (i) + 1] = (uint8_t)((c) >> 8);          \
	} while (0)

#define KERNEL(name, T, SIZE)                                                   \
	static __attribute__((noipa)) int name(const quant *qp, uint8_t *restrict dst, \
	                                          const T *restrict src, int n) {     \
		const quant q = *qp;                                                \
		int nans = 0;                                                       \
		for (int i = 0; i < n; i++) {                                       \
			double v = (double)src[i];                                 \
			uint64_t c = idx(&q, v);                                    \
			nans += v != v;                                             \
			STORE(dst, SIZE, i, c);                                     \
		}                                                                   \
		return nans;                                                        \
	}

typedef struct {
	float min, max, scale;
	int32_t lowest;
} quant32;

static quant32 mk32(int wire, double min, double max) {
	static const double levels[] = {0, 255, 254, 65535, 65534};
	static const int32_t lowest[] = {0, 0, -127, 0, -32767};
	quant32 q = {(float)min, (float)max, (float)(levels[wire] / (max - min)), lowest[wire]};
	return q;
}

#define KERNEL32(name, SIZE)                                                    \
	static __attribute__((noipa)) int name(const quant32 *qp, uint8_t *restrict dst, \
	                                          const float *restrict src, int n) { \
		const quant32 q = *qp;                                              \
		int nans = 0;                                                       \
		for (int i = 0; i < n; i++) {                                       \
			float v = src[i];                                           \
			float x = v > q.min ? v : q.min; /* NaN to RangeMin */      \
			x = x < q.max ? x : q.max;                                  \
			int32_t c = (int32_t)__builtin_rintf((x - q.min) * q.scale) + q.lowest; \
			nans += v != v;                                             \
			STORE(dst, SIZE, i, c);                                     \
		}                                                                   \
		return nans;                                                        \
	}

KERNEL32(enc8_f32a, 1)
KERNEL32(enc16_f32a, 2)

KERNEL(enc8_f32, float, 1)
KERNEL(enc8_f64, double, 1)
KERNEL(enc16_f32, float, 2)
KERNEL(enc16_f64, double, 2)

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static uint64_t fnv(const uint8_t *b, int n) {
	uint64_t h = 14695981039346656037ull;
	for (int i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ull;
	}
	return h;
}

static float s32[N];
static double s64[N];
static uint8_t dst[2 * N], ref[2 * N];

// run times one kernel on wire type w (best of 15 batches of 2000 calls)
// and prints its line.
static void run(int f32arith, int src, int w) {
	static const char *wname[] = {"", "uint8", "int8", "uint16", "int16"};
	quant q = mk(w, -1, 1);
	quant32 q32 = mk32(w, -1, 1);
	int size = w <= 2 ? 1 : 2;
	volatile int sink = 0;
	double best = 1e30;
	for (int batch = 0; batch < 15; batch++) {
		double t0 = now();
		for (int r = 0; r < 2000; r++) {
			if (f32arith)
				sink += size == 1 ? enc8_f32a(&q32, dst, s32, N) : enc16_f32a(&q32, dst, s32, N);
			else if (src == 32)
				sink += size == 1 ? enc8_f32(&q, dst, s32, N) : enc16_f32(&q, dst, s32, N);
			else
				sink += size == 1 ? enc8_f64(&q, dst, s64, N) : enc16_f64(&q, dst, s64, N);
		}
		double dt = (now() - t0) / (2000.0 * N);
		if (dt < best)
			best = dt;
	}
	int diff = 0;
	if (f32arith) {
		if (size == 1) // the exact codes, for the count
			enc8_f32(&q, ref, s32, N);
		else
			enc16_f32(&q, ref, s32, N);
		for (int i = 0; i < N; i++)
			diff += memcmp(dst + size * i, ref + size * i, size) != 0;
	}
	printf("%s f%d-%s %.4f %016llx %d\n", f32arith ? "f32" : "f64", src, wname[w], best,
	       (unsigned long long)fnv(dst, size * N), diff);
}

int main(void) {
	// Same input as cref_test.go: spread over [-1.1, 1.1], some out of range.
	for (int i = 0; i < N; i++) {
		s64[i] = -1.1 + 2.2 * (double)((i * 7919) % N) / N;
		s32[i] = (float)s64[i];
	}
	for (int src = 32; src <= 64; src += 32)
		for (int w = 1; w <= 4; w++)
			run(0, src, w);
	for (int w = 1; w <= 4; w++)
		run(1, 32, w);
	return 0;
}
