"""The demos' settings: rounding, the interval every page asks for, the limits of one Compute."""

from ..stats import DEFAULT_RESAMPLES, DEFAULT_SEED

PRESET = "preset"  # the option choice that means "the preset's value"
DIGITS = 4  # headline and table numbers are rounded to this many decimals
CONFIDENCE = 0.95  # every demo's bootstrap interval
# the resampling every page passes with CONFIDENCE (the library's defaults; fid_clip's FID: its own)
RESAMPLING = {"confidence": CONFIDENCE, "n_resamples": DEFAULT_RESAMPLES, "seed": DEFAULT_SEED}
CI_SUFFIXES = ("_ci_low", "_ci_high")
UPLOAD_MB = 128  # the largest file a page accepts (FID's Inception weights file is 91 MB)
INPUT_CHARS = (
    10_000_000  # the most text (characters, all boxes together) one Compute accepts: the page says so
)
ROWS_SHOWN = 1000  # the per-example table's rows in the page (all of them: its CSV file)
TEXT_LINES, CODE_LINES = 12, 16  # the most lines an input box grows to before it scrolls
# warnings of these kinds are about the stack (evaluate, torch, ...), not about the numbers: not shown
QUIET_WARNINGS = (
    DeprecationWarning,
    PendingDeprecationWarning,
    FutureWarning,
    ImportWarning,
    ResourceWarning,
)
NBSP = "\u00a0"  # joins a number to its interval so that the pair never breaks over two lines
