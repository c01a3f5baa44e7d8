#!/usr/bin/env python3
"""scripts/launch_ranks.py on a hand-made launches CSV (the columns ch06_derived --launches-csv
writes): rho per case against values worked by hand (ties included), the launches left out of the
ranking, pick/best and derived/best, the per-op summary, a case read twice, and the errors.
Registered in CTest under the cpu label (tests/CMakeLists.txt)."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import launch_ranks  # noqa: E402

HEADER = ("gpu,sm_count,sm_clock_mhz,mem_clock_mhz,driver,cuda,commit,date,op,shape,precision,launch,"
          "is derived,is default,predicted ms,measured ms,params\n")
META = "NVIDIA H200,132,1980,2619,13.0,13.0,abc1234,2030-01-02T03:04:05Z,"
# gemv case 1: the model orders the four ranked launches as measured (rho 1); a fifth launch has no
#   prediction and is not ranked, but is the fastest measured (so pick/best = 0.5/1.1).
# gemv case 2: reversed (rho -1); the model's pick is the slowest (pick/best = 1/3).
# symv: a tie in the predictions, ranks 1.5 1.5 3 against 1 2 3: rho = 1.5 / sqrt(1.5 * 2) = 0.866.
ROWS = [
    "gemv,N 1001 x 37 float,float,a,1,0,1.0,1.1,block_x=32",
    "gemv,N 1001 x 37 float,float,b,0,1,2.0,2.2,block_x=64",
    "gemv,N 1001 x 37 float,float,c,0,0,3.0,3.3,block_x=128",
    "gemv,N 1001 x 37 float,float,d,0,0,4.0,4.4,block_x=256",
    "gemv,N 1001 x 37 float,float,e,0,0,-,0.5,block_x=512",
    "gemv,T 77 x 5000 double,double,a,0,0,1.0,3.0,block_x=32",
    "gemv,T 77 x 5000 double,double,b,1,1,2.0,2.0,block_x=64",
    "gemv,T 77 x 5000 double,double,c,0,0,3.0,1.0,block_x=128",
    "symv,lower 999 float,float,a,0,0,1.5,1.0,nb=32",
    "symv,lower 999 float,float,b,1,1,1.5,2.0,nb=64",
    "symv,lower 999 float,float,c,0,0,2.5,3.0,nb=128",
]


def write(text):
    fh = tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False, encoding="utf-8")
    fh.write(text)
    fh.close()
    return fh.name


def run(*args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = launch_ranks.main(list(args))
    return rc, out.getvalue()


class LaunchRanks(unittest.TestCase):
    def setUp(self):
        self.path = write(HEADER + "".join(META + r + "\n" for r in ROWS))

    def tearDown(self):
        os.remove(self.path)

    def case(self, shape):
        cases, _ = launch_ranks.read_cases([self.path])
        return launch_ranks.case_result(next(rows for (_, s, _), rows in cases.items() if s == shape))

    def test_rho_per_case(self):
        n, ranked, rho, pick, derived = self.case("N 1001 x 37 float")
        self.assertEqual((n, ranked), (5, 4))
        self.assertAlmostEqual(rho, 1.0, places=12)
        self.assertAlmostEqual(pick, 0.5 / 1.1, places=12)
        self.assertAlmostEqual(derived, 0.5 / 1.1, places=12)
        n, ranked, rho, pick, derived = self.case("T 77 x 5000 double")
        self.assertAlmostEqual(rho, -1.0, places=12)
        self.assertAlmostEqual(pick, 1.0 / 3.0, places=12)
        self.assertAlmostEqual(derived, 0.5, places=12)
        _, _, rho, _, _ = self.case("lower 999 float")
        self.assertAlmostEqual(rho, 1.5 / (1.5 * 2) ** 0.5, places=12)

    def test_no_rho_without_an_order(self):
        self.assertIsNone(launch_ranks.spearman([1.0], [2.0]))
        self.assertIsNone(launch_ranks.spearman([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]))
        self.assertEqual(launch_ranks.ranks([5.0, 1.0, 5.0]), [2.5, 1.0, 2.5])  # as derive::ranks

    def test_printed_table_and_summary(self):
        rc, out = run(self.path)
        self.assertEqual(rc, 0)
        self.assertIn("run: NVIDIA H200, commit abc1234, 2030-01-02T03:04:05Z", out)
        lines = out.splitlines()
        row = next(line for line in lines if "T 77 x 5000 double" in line).split()
        self.assertEqual(row[-5:], ["3", "3", "-1.00", "0.333", "0.500"])
        self.assertIn("gemv: rho over 2 of 2 cases: mean 0.00, worst -1.00 (T 77 x 5000 double); 1 of 2 at or above 0.80",
                      lines)
        self.assertIn("symv: rho over 1 of 1 cases: mean 0.87, worst 0.87 (lower 999 float); 1 of 1 at or above 0.80",
                      lines)
        _, out = run("--target", "0.9", self.path)
        self.assertIn("0 of 1 at or above 0.90", out)

    def test_a_case_read_again_keeps_the_later_rows(self):
        later = write(HEADER + "NVIDIA H200,132,1980,2619,13.0,13.0,def5678,2030-01-03T00:00:00Z,"
                      "symv,lower 999 float,float,a,0,0,1.0,1.0,nb=32\n"
                      "NVIDIA H200,132,1980,2619,13.0,13.0,def5678,2030-01-03T00:00:00Z,"
                      "symv,lower 999 float,float,b,0,0,2.0,2.0,nb=64\n")
        try:
            cases, runs = launch_ranks.read_cases([self.path, later])
            self.assertEqual(len(runs), 2)
            self.assertEqual(len(cases[("symv", "lower 999 float", "float")]), 2)
            self.assertEqual(len(cases[("gemv", "N 1001 x 37 float", "float")]), 5)
        finally:
            os.remove(later)

    def test_errors(self):
        header_only = write(HEADER)
        wrong = write("op,shape,ms\ngemv,N 1 x 1 float,1.0\n")
        try:
            with self.assertRaises(SystemExit) as e:
                run(header_only)
            self.assertIn("no swept launches", str(e.exception.code))
            with self.assertRaises(SystemExit) as e:
                run(wrong)
            self.assertIn("lacks the columns gpu, commit, date", str(e.exception.code))
            with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as e:
                run("--target", "2", self.path)
            self.assertEqual(e.exception.code, 2)
        finally:
            os.remove(header_only)
            os.remove(wrong)


if __name__ == "__main__":
    unittest.main()
