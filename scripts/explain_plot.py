# SPDX-License-Identifier: MIT
"""Draw docs/assets/explain-masses.svg and explain-modes.svg: the explain page's batch, plotted.

The images on docs/explain.md are what `rolloutnorm explain --plot` writes for the batch the
page's first console block writes, under the page's floor-drop settings, without and with
`--modes`. The tests draw them again and fail when one differs from the committed file; this
script rewrites both.

    python scripts/explain_plot.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "explain.md"
IMAGE = ROOT / "docs" / "assets" / "explain-masses.svg"
MODES_IMAGE = ROOT / "docs" / "assets" / "explain-modes.svg"
# The commands as the page shows them, with the files they write.
COMMAND = (
    "rolloutnorm explain batch.jsonl --plot masses.svg "
    "--set actor_rollout_ref.actor.ppo_mini_batch_size=4"
)
MODES_COMMAND = (
    "rolloutnorm explain batch.jsonl --modes --plot modes.svg "
    "--set actor_rollout_ref.actor.ppo_mini_batch_size=4"
)
IMAGES = {IMAGE: COMMAND, MODES_IMAGE: MODES_COMMAND}
_OPENING = "$ cat > batch.jsonl <<'EOF'"


def shown_commands(text: str) -> str:
    """The page's text with each command's continuation lines (a backslash at the end) joined."""
    return " ".join(text.replace("\\\n", " ").split())


def page_batch(text: str) -> str:
    """The batch the page's here-document writes, as the shell writes it."""
    lines = text.split("\n")
    start = lines.index(_OPENING) + 1
    end = lines.index("> EOF", start)
    return "".join(f"{line[2:]}\n" for line in lines[start:end])


def draw(folder: Path, command: str = COMMAND) -> bytes:
    """Write the page's batch in `folder`, run one of its plot commands there, the image's bytes."""
    (folder / "batch.jsonl").write_text(page_batch(PAGE.read_text("utf-8")), encoding="utf-8")
    arguments = command.split()[1:]
    subprocess.run(
        [sys.executable, "-m", "rolloutnorm", *arguments],
        cwd=folder,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return (folder / arguments[arguments.index("--plot") + 1]).read_bytes()


def main() -> int:
    """Rewrite the committed images; the exit status."""
    for image, command in IMAGES.items():
        with tempfile.TemporaryDirectory() as folder:
            image.write_bytes(draw(Path(folder), command))
        print(f"{image.relative_to(ROOT)} written")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
