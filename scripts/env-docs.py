#!/usr/bin/env python3
"""Fills the README's environment tables from each binary's own `help` output, so the
documentation is the configuration structs (make build first)."""
import re, subprocess, sys

def parse(binary):
    out = subprocess.run([binary, "help"], capture_output=True, text=True).stderr
    env = out.split("environment:", 1)[1]
    rows = {}
    for line in env.splitlines():
        if not line.startswith("  "):
            continue
        # `help` prints name, default (never containing a space) and description.
        parts = line.split(None, 2)
        if len(parts) == 3:
            rows[parts[0]] = (parts[1], parts[2])
    return rows

def table(rows):
    lines = ["| variable | default | meaning |", "|---|---|---|"]
    for name, (default, desc) in sorted(rows.items()):
        d = "" if default == "(unset)" else f"`{default}`"
        lines.append(f"| `{name}` | {d} | {desc} |")
    return "\n".join(lines)

services = ["content", "orgboard", "renderevents"]
envs = {s: parse(f"bin/{s}") for s in services}
common = {k for k in set.intersection(*(set(e) for e in envs.values()))
          if len({envs[s][k][0] for s in services}) == 1}
readme = open("README.md").read()
start, end = "<!-- env:begin -->", "<!-- env:end -->"
parts = ["Shared by the three services:", "", table({k: envs["content"][k] for k in common})]
for s in services:
    parts += ["", f"### {s}", "", table({k: v for k, v in envs[s].items() if k not in common})]
block = start + "\n" + "\n".join(parts) + "\n" + end
if start in readme:
    readme = re.sub(re.escape(start) + ".*?" + re.escape(end), lambda _: block, readme, flags=re.S)
else:
    sys.exit("README.md has no env markers")
open("README.md", "w").write(readme)
