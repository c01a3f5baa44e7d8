#!/usr/bin/env python3
"""scripts/ch07_repeatability.py on two hand-made ch07_split tables: each run as the model of the
other, counts worked by hand (a measured best that moves, a hybrid that loses in the other run, a
hybrid that did not split, a time 15% off and one just under), each run's own model (through
ch07_table.py's summary), the CPU columns averaged over the two runs, the two bounds (each
group scaled by its other rows' miss, each row by its miss in the other run), and a file that is
not a chapter 7 table. Registered in CTest under the cpu label (tests/CMakeLists.txt)."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import ch07_repeatability as rep  # noqa: E402

HEADER = ("gpu,sm_count,sm_clock_mhz,mem_clock_mhz,driver,cuda,commit,date,op,T,FS,n,CPU model,CPU measured,"
          "CPU min,CPU max,GPU+comm model,GPU+comm measured,hybrid model,hybrid measured,hybrid min,hybrid max,"
          "GPU share,White 4.18,model's choice,measured best,choice / best\n")
META = "NVIDIA H200,132,1980,3201,13.0,13.0,abc1234,2030-01-02T03:04:05Z,"


def row(op, n, cpu_model, cpu, gpu_model, gpu, hyb_model, hyb, share, choice, best):
    return META + ",".join(str(x) for x in (op, "float", "-", n, cpu_model, cpu, cpu, cpu, gpu_model, gpu, hyb_model,
                                            hyb, hyb, hyb, share, "CPU", choice, best, "1.00x")) + "\n"


# Run A                                  CPU model/meas, GPU model/meas, hybrid model/meas, share
A = [row("gemv", 64, 1.0, 1.0, 5.0, 5.0, 1.0, 1.0, "0.0%", "CPU", "CPU"),          # hybrid did not split
     row("gemv", 4096, 2.0, 2.0, 4.0, 4.0, 1.5, 1.5, "30.0%", "hybrid", "hybrid"),
     row("gemm", 512, 9.0, 9.0, 1.0, 1.0, 0.95, 0.9, "95.0%", "GPU", "hybrid")]
# Run B: the GEMV hybrid now loses to the CPU (1.9 against 1.8), the GEMM rows moved by 15% and 10%
B = [row("gemv", 64, 1.0, 1.1, 5.0, 5.0, 1.1, 1.1, "0.0%", "CPU", "CPU"),
     row("gemv", 4096, 2.0, 1.8, 4.0, 4.0, 1.5, 1.9, "30.0%", "hybrid", "CPU"),
     row("gemm", 512, 9.0, 7.2, 1.0, 1.1, 0.95, 0.99, "95.0%", "GPU", "hybrid")]


def write(lines):
    fh = tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False, encoding="utf-8")
    fh.write(HEADER + "".join(lines))
    fh.close()
    return fh.name


class Repeatability(unittest.TestCase):
    def setUp(self):
        self.a, self.b = write(A), write(B)

    def tearDown(self):
        os.unlink(self.a)
        os.unlink(self.b)

    def test_a_as_the_model_of_b(self):
        p = rep.pair(rep.read(self.a), rep.read(self.b))
        # best: gemv 64 CPU (1.1 best) yes; gemv 4096 A's hybrid 1.9 vs B's best 1.8 (5.6% over) no;
        # gemm 512 A's hybrid 0.99 vs B's best 0.99 yes
        self.assertEqual(p["best"], [2, 3])
        # CPU: 1.0/1.1 (9% off) yes; 2.0/1.8 (11%) yes; 9.0/7.2 (25%) no
        self.assertEqual(p["CPU"], [2, 3])
        # GPU+comm: 5/5, 4/4, 1.0/1.1 (9%): all
        self.assertEqual(p["GPU+comm"], [3, 3])
        # hybrid where both split: 1.5/1.9 (21%) no; 0.9/0.99 (9%) yes
        self.assertEqual(p["hybrid"], [1, 2])
        # A's measured-best hybrids (gemv 4096, gemm 512) run in B: 1.9 > 1.8 loses, 0.99 < 1.1 holds
        self.assertEqual(p["hybrid loses"], [1, 2])

    def test_b_as_the_model_of_a(self):
        p = rep.pair(rep.read(self.b), rep.read(self.a))
        # B's bests CPU, CPU, hybrid in A: 1.0 (best 1.0) yes; 2.0 against A's 1.5 no; 0.9 yes
        self.assertEqual(p["best"], [2, 3])
        self.assertEqual(p["hybrid loses"], [0, 1])

    def test_own_model(self):
        o = rep.own_model(self.b)
        # B's choices: CPU 1.1 (best) yes; hybrid 1.9 vs 1.8 no; GPU 1.1 vs hybrid 0.99 (11% over) no
        self.assertEqual(o[0], "model's choice is the measured best or within 5% of it: 1 of 3 (33%)")
        self.assertEqual(o[1], "CPU model within 15% of the measured CPU: 2 of 3 (67%)")  # 9.0/7.2 no
        self.assertEqual(o[5], "hybrid chosen by the model but slower than a single side: 1 of 1 (100%)")

    def test_averaged_over_two_runs(self):
        a, b = rep.read(self.a), rep.read(self.b)
        # each run alone: A 3 of 3; B 1.0/1.1 (9%) yes, 2.0/1.8 (11%) yes, 9.0/7.2 (25%) no
        self.assertEqual(rep.own_cpu(a), (3, 3))
        self.assertEqual(rep.own_cpu(b), (2, 3))
        # averaged: 1.0 against sqrt(1.1) = 1.049 yes; 2.0 against sqrt(3.6) = 1.897 yes;
        # 9.0 against sqrt(64.8) = 8.050 (11.8%) yes
        self.assertEqual(rep.averaged(a, b), (3, 3))

    def test_group_scaled(self):
        b = rep.read(self.b)
        # B's ratios (measured / model): gemv 64 1.1, gemv 4096 0.9, gemm 512 0.8.
        # gemv 64 scaled by its group's other row (0.9): 0.9 against 1.1 (18%) no;
        # gemv 4096 by 1.1: 2.2 against 1.8 (22%) no; gemm 512 alone in its group keeps 9.0 (25%) no
        self.assertEqual(rep.group_scaled(b), (0, 3))
        # A's ratios are all 1: scaling by 1 keeps its 3 of 3
        self.assertEqual(rep.group_scaled(rep.read(self.a)), (3, 3))

    def test_other_runs_scaled(self):
        runs = [rep.read(self.a), rep.read(self.b)]
        # A scaled by B's ratios (1.1, 0.9, 0.8): 1.1/1.0, 1.8/2.0, 7.2/9.0 (20% off) -> 2 of 3
        self.assertEqual(rep.other_runs_scaled(runs, 0), (2, 3))
        # B scaled by A's ratios (all 1): B as run, 2 of 3
        self.assertEqual(rep.other_runs_scaled(runs, 1), (2, 3))

    def test_best_over_runs(self):
        runs = [rep.read(self.a), rep.read(self.b)]
        # B judged by A's measured times. gemv 64: A's CPU (its hybrid did not split) -> B's CPU 1.1,
        # the best: yes. gemv 4096: A's hybrid 1.5 beats its CPU 2.0 by 25% -> B's hybrid 1.9 against
        # B's best 1.8 (5.6% over): no, and it loses. gemm 512: A's hybrid 0.9 beats its GPU 1.0 by
        # 10% -> B's hybrid 0.99, the best: yes, and it holds (0.99 < 1.1).
        self.assertEqual(rep.best_over_runs(runs, 1, 0.0), {"best": [2, 3], "hybrid loses": [1, 2]})
        # At a 20% margin gemm 512 keeps A's GPU: B's GPU 1.1 against 0.99 (11% over): no
        self.assertEqual(rep.best_over_runs(runs, 1, 0.2), {"best": [1, 3], "hybrid loses": [1, 1]})
        # A judged by B: gemv 4096 B's CPU 1.8 against its hybrid 1.9 -> A's CPU 2.0 against A's
        # hybrid 1.5: no; gemm 512: B's hybrid 0.99 beats its GPU 1.1 by 10% -> A's 0.9, the best.
        self.assertEqual(rep.best_over_runs(runs, 0, 0.0), {"best": [2, 3], "hybrid loses": [0, 1]})

    def test_best_over_runs_needs_the_hybrid_in_half_the_other_runs(self):
        c = [line.replace("30.0%", "0.0%") if ",4096," in line else line for line in A]  # gemv 4096: no split
        path = write(c)
        try:
            runs = [rep.read(path), rep.read(path), rep.read(self.b)]
            # For B: gemv 4096's hybrid split in neither other run -> their CPU (2.0 < 4.0): B's CPU
            # 1.8, the best: yes; gemm 512 as before: yes. gemv 64: yes.
            self.assertEqual(rep.best_over_runs(runs, 2, 0.0), {"best": [3, 3], "hybrid loses": [0, 1]})
        finally:
            os.unlink(path)

    def test_goals_met(self):
        self.assertEqual(rep.goals_met(95, 100, 0), (True, True))
        self.assertEqual(rep.goals_met(94, 100, 0), (False, True))
        self.assertEqual(rep.goals_met(100, 100, 1), (True, False))
        self.assertEqual(rep.goals_met(0, 0, 0), (False, True))

    def test_main_prints_both_parts(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(rep.main(["x", self.a, self.b]), 0)
        text = out.getvalue()
        self.assertIn("2 runs, 2 ordered pairs", text)
        self.assertIn("hybrids chosen (there: measured best) and slower than a single side", text)
        # run A's own model: CPU, hybrid, and GPU 1.0 against 0.9 (11%) no
        self.assertIn("model's choice is the measured best or within 5% of it: 2 of 3 (67%)", text)
        self.assertIn("%s 3 of 3, %s 2 of 3, averaged 3 of 3" % (self.a, self.b), text)
        self.assertIn("%s: 2 of 3 / 0 of 3 / 2 of 3" % self.b, text)
        # the hindsight choice: 2 of 3 within 5% in each run (< 95%); A loses no hybrid, B one
        self.assertIn("runs of 2: choice within 5% at >= 95% of the rows", text)
        self.assertIn("  margin  0%: 0 / 1 / 0", text)
        # the runs' own models: A 2 of 3 (no hybrid chosen), B 1 of 3 (its hybrid lost)
        self.assertIn("  the runs' own models: 0 / 1 / 0", text)

    def test_full_keeps_the_largest_tables(self):
        short = write(A[:2])
        try:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(rep.main(["x", "--full", self.a, short, self.b]), 0)
            self.assertIn("2 runs, 2 ordered pairs", out.getvalue())
            self.assertNotIn(short, out.getvalue())
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(rep.main(["x", "--full", self.a, short]), 2)  # one table left
        finally:
            os.unlink(short)

    def test_not_a_table(self):
        bad = tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False, encoding="utf-8")
        bad.write("op,T,n\ngemv,float,64\n")
        bad.close()
        try:
            with self.assertRaises(SystemExit) as e:
                rep.read(bad.name)
            self.assertIn("not a ch07_split --csv table", str(e.exception))
        finally:
            os.unlink(bad.name)


if __name__ == "__main__":
    unittest.main()
