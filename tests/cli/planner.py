"""What the planner's brute-force tests share: `tacio plan --json` as a
dict, and a count of failed checks (each printed as it fails)."""
import json
import subprocess


class Checks:
    def __init__(self):
        self.failures = 0

    def __call__(self, ok, what):
        if not ok:
            self.failures += 1
            print("FAIL:", what)


def plan_json(tacio, args, strategy):
    out = subprocess.run([tacio, "plan", "--json", "--strategy", strategy] + args,
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)
