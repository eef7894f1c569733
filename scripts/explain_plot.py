# SPDX-License-Identifier: MIT
"""Draw docs/assets/explain-masses.svg: the explain page's own batch, plotted by the command.

The image on docs/explain.md is what `rolloutnorm explain --plot` writes for the batch the
page's first console block writes, under the page's floor-drop settings. The tests draw it
again and fail when it differs from the committed file; this script rewrites that file.

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
# The command as the page shows it, with the file it writes.
COMMAND = (
    "rolloutnorm explain batch.jsonl --plot masses.svg "
    "--set actor_rollout_ref.actor.ppo_mini_batch_size=4"
)
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


def draw(folder: Path) -> bytes:
    """Write the page's batch in `folder`, run the page's plot command there, the image's bytes."""
    (folder / "batch.jsonl").write_text(page_batch(PAGE.read_text("utf-8")), encoding="utf-8")
    arguments = COMMAND.split()[1:]
    subprocess.run(
        [sys.executable, "-m", "rolloutnorm", *arguments],
        cwd=folder,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return (folder / "masses.svg").read_bytes()


def main() -> int:
    """Rewrite the committed image; the exit status."""
    with tempfile.TemporaryDirectory() as folder:
        IMAGE.write_bytes(draw(Path(folder)))
    print(f"{IMAGE.relative_to(ROOT)} written")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
