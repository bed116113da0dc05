/*
 * Reference for the Waveform GAM's TimeInput mode: the algorithm of
 * MARTe2's WaveformGAM::WaveformSin, in C, compiled by
 * waveform_time_test.go with the system C compiler and its libm.
 *
 * Usage: marte2_sine AMPLITUDE FREQUENCY PHASE OFFSET ELEMENTS < times
 * Reads one time input per line (µs, uint32) and prints, per cycle, each
 * element as the 16 hex digits of its float64 value, the 8 hex digits of
 * that value converted to float32, and the value converted (C cast) to
 * uint16 and int16, separated by spaces. A cycle that fails prints "fail".
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s A F PHASE OFFSET N < times\n", argv[0]);
        return 2;
    }
    double amplitude = atof(argv[1]), frequency = atof(argv[2]);
    double phase = atof(argv[3]), offset = atof(argv[4]);
    unsigned n = (unsigned)atoi(argv[5]);
    double w = 2.0 * 3.14159265358979323846 * frequency;
    double *out = calloc(n, sizeof *out);
    int state = 0;
    uint64_t t0 = 0;
    double increment = 0.0;
    unsigned long long in;
    while (scanf("%llu", &in) == 1) {
        uint64_t now = (uint64_t)(uint32_t)in;
        int ok = 1, compute = 0;
        if (state == 0) { /* first cycle: the signal is off, all zeros */
            t0 = now;
            state = 1;
            memset(out, 0, n * sizeof *out);
        } else if (state == 1) { /* second cycle: the element spacing */
            increment = (((double)now - (double)t0) / (double)n) / 1e6;
            state = 2;
            if (increment == 0.0) ok = 0;
            else if (((1.0 / increment) / 2.0) < frequency) ok = 0;
            compute = ok;
        } else {
            compute = 1;
        }
        if (compute) {
            double t = (double)now / 1e6;
            for (unsigned i = 0; i < n; i++) {
                double aux = (w * t) + phase;
                out[i] = (amplitude * sin(aux)) + offset;
                t += increment;
            }
        }
        if (!ok) {
            printf("fail\n");
            continue;
        }
        for (unsigned i = 0; i < n; i++) {
            double d = out[i];
            float f = (float)d;
            uint64_t db;
            uint32_t fb;
            memcpy(&db, &d, 8);
            memcpy(&fb, &f, 4);
            printf("%016llx %08x %u %d%s", (unsigned long long)db, fb, (unsigned)(uint16_t)d, (int)(int16_t)d, i + 1 < n ? " " : "\n");
        }
    }
    free(out);
    return 0;
}
