"""What the benches' drivers share (bench/io/run, bench/smpi/run): running a
command so that a stopped bench leaves nothing behind, building the tree's
targets, reading the programs' key=value lines, medians.

Imported by adding bench/lib to sys.path (each driver does it first)."""
import os
import signal
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def parse_kv(line):
    """{key: value} of a line's key=value words (other words skipped)."""
    return dict(word.split("=", 1) for word in line.split() if "=" in word)


def kv_lines(text, prefix):
    """parse_kv of every line of text that starts with prefix."""
    return [parse_kv(line) for line in text.splitlines() if line.startswith(prefix)]


def median(values):
    return statistics.median(values)


def geomean(values):
    """The geometric mean of positive values (1.0 for none)."""
    values = list(values)
    product = 1.0
    for x in values:
        product *= x ** (1.0 / len(values))
    return product


def run_group(cmd, env, what, bench, timeout=1800, preexec_fn=None):
    """(exit status, stdout, stderr) of cmd, run in a process group of its
    own that is killed whole if the bench stops or the timeout passes (a
    launcher killed alone can leave its ranks running)."""
    with subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, start_new_session=True, preexec_fn=preexec_fn) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            sys.exit(f"{bench}: {what} took more than {timeout} s; stopped")
        except BaseException:
            os.killpg(proc.pid, signal.SIGKILL)
            raise
    return proc.returncode, out, err


def run_checked(cmd, env, what, bench, timeout=1800):
    """cmd's stdout; the bench ends with cmd's output when it fails."""
    rc, out, err = run_group(cmd, env, what, bench, timeout)
    if rc:
        sys.exit(f"{bench}: {what} failed (exit {rc}):\n{out}{err[-3000:]}")
    return out


def cmake_targets(build_dir, targets, bench, configure=("-DTACIO_MPI=OFF",)):
    """Builds targets in build_dir (configured first where it is not yet):
    up to date, a second or two."""
    if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
        run_checked(["cmake", "-S", ROOT, "-B", build_dir, *configure], None,
                    f"configuring {build_dir}", bench)
    run_checked(["cmake", "--build", build_dir, "-j", "2", "--target", *targets], None,
                f"building {' '.join(targets)} in {build_dir}", bench)
