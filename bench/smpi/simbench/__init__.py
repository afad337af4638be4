"""bench/smpi's package: the engine on simulated clusters (SimGrid SMPI).

  records    Job, Case and Run: what is simulated and what a run stored
  jobs       the clusters and the jobs of each mode
  platforms  the platform files `tacio platform` writes, and their rates
  launch     smpirun's command line and the SimGrid configuration
  simulate   building the driver, running the simulations
  summary    the paper, auto and memory summaries of stored runs
  floors     no stored run under its plan's busiest-link or disk floor
  cli        the subcommands (bench/smpi/run)
"""
import os
import sys

# benchlib (bench/lib): what the benches share
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "lib"))
