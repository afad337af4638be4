"""smpirun's command line as the benches run it: the SimGrid configuration
every simulation takes (bench/smpi's runs and calibrations, bench/lab's
comparison), apart from what runs under it."""
import os

# network/weight-S:0: SimGrid 3.32's RTT-weighted sharing (SMPI's default
# weight-S 8775) crashes its LMM solver on btio at 400+ ranks; flows then
# share a link equally (docs/simulation.md).
SMPI_CFG = ["--cfg=smpi/privatization:dlopen", "--cfg=smpi/simulate-computation:no",
            "--cfg=smpi/coll-selector:ompi", "--cfg=smpi/send-is-detached-thresh:0",
            "--cfg=network/weight-S:0"]
# The papers' jobs: SMPI's shared memory in blocks of 1 GiB (its 1 MiB
# default would map 64 K blocks for the users' buffers, as many as Linux
# lets a process map), and SimGrid's max-min solver solving the whole
# system at each event (every flow of a round crosses the tree's uplinks,
# so the part an event touches is nearly the whole; 24-32% less CPU, the
# same times within 5e-05 of themselves: docs/simulation.md).
PAPER_CFG = ["--cfg=smpi/shared-malloc-blocksize:1073741824", "--cfg=network/optim:Full",
             "--cfg=network/maxmin-selective-update:no"]


def simgrid_cfg(paper, precision=None):
    """smpirun's --cfg flags: the bench's, the papers' jobs' shared memory
    and solver, SimGrid's maxmin/precision where one is given."""
    cfg = SMPI_CFG + (PAPER_CFG if paper else [])
    return cfg + ([] if precision is None else [f"--cfg=maxmin/precision:{precision:g}"])


def smpirun(plat_dir, ranks, paper=False, precision=None):
    """smpirun's command up to the program: ranks on plat_dir's platform
    and hostfile, with the bench's cfg (simgrid_cfg)."""
    return ["smpirun", "-np", str(ranks), "-platform", os.path.join(plat_dir, "platform.xml"),
            "-hostfile", os.path.join(plat_dir, "hostfile"), *simgrid_cfg(paper, precision)]
