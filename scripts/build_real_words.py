"""Write services/analysis/crisis/real_words.txt: the words of English one edit away from a
lexicon word, which the crisis reader's misspelling tolerance must leave as they are ("prison"
is no "poison", "craving" no "carving").

The words come from the SCOWL word lists as Debian packages them (``apt-get install wamerican
wbritish``; SCOWL's copyright permits copying and redistribution). Run it again after the
lexicons change: ``python scripts/build_real_words.py``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from services.analysis.crisis.reading import REAL_WORDS_PATH, corrected

WORD_LISTS = (Path("/usr/share/dict/american-english"), Path("/usr/share/dict/british-english"))
_WORD = re.compile(r"[a-z]+")
HEADER = """# Words of English one edit from a crisis lexicon word: never read as a misspelling.
# From the SCOWL word lists (Debian wamerican, wbritish; copyright Kevin Atkinson and others,
# copying and redistribution permitted). Written by scripts/build_real_words.py.
"""


def real_words(lists: tuple[Path, ...] = WORD_LISTS) -> list[str]:
    """Lower-case words of the lists that the lexicons' misspelling tolerance would change."""
    words = {line.strip().lower() for path in lists
             for line in path.read_text(encoding="utf-8", errors="replace").splitlines()}
    return sorted(w for w in words if _WORD.fullmatch(w) and corrected(w) != w)


def main() -> None:
    missing = [str(path) for path in WORD_LISTS if not path.exists()]
    if missing:
        sys.exit(f"missing word lists: {', '.join(missing)} (apt-get install wamerican wbritish)")
    found = real_words()
    REAL_WORDS_PATH.write_text(HEADER + "\n".join(found) + "\n", encoding="utf-8")
    print(f"{len(found)} words written to {REAL_WORDS_PATH}")


if __name__ == "__main__":
    main()
