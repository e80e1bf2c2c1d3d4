"""ru_meteor's alignment: which reference token each hypothesis token is matched to, and the chunks.

NLTK's ``meteor_score`` enumeration (``nltk.translate.meteor_score``), reproduced so that the matches
and chunks, hence the floats, are identical:

    stage 1 exact, stage 2 stem, stage 3 synonyms, each on what the previous stage left;
    within a stage the hypothesis tokens are visited from the LAST to the first and each takes the
    LAST still-free reference token that it matches. Stage 2 compares the stems (the keys); stage 3
    compares keys too: a reference key matches a hypothesis key k when it is in synonyms(k) (which
    holds k).

``align`` returns ``(reference position, stage)`` per hypothesis token (``(-1, 0)``: not aligned);
``alignment_stats`` counts the matches m and the chunks, the runs of pairs adjacent in both sentences
(pairs taken in hypothesis order). 0 matches give 0 chunks (NLTK counts 1, which never reaches the
score since the score is 0 then). An empty hypothesis or reference aligns nothing.
"""

EXACT, STEM, SYNONYM, NUMERIC = 1, 2, 3, 4
STAGE_NAMES = {EXACT: "exact", STEM: "stem", SYNONYM: "synonym", NUMERIC: "numeric"}


def align(hyp: list, ref: list, hyp_keys: list, ref_keys: list, synonyms=None) -> list:
    """Which reference position each hypothesis token is aligned to (-1: none) and by which stage.

    Returns ``[(ref_position, stage), ...]`` per hypothesis token, NLTK's exact / stem / synonym
    enumeration order (see the module docstring)."""
    n, m = len(hyp), len(ref)
    out = [(-1, 0)] * n
    if not n or not m:
        return out
    free = [True] * m
    left = _stage(hyp, range(n - 1, -1, -1), _positions(ref, range(m)), free, out, EXACT)
    if not left:
        return out
    positions = _positions(ref_keys, [j for j in range(m) if free[j]])
    if not positions:
        return out
    still = _stage(hyp_keys, left, positions, free, out, STEM)
    if synonyms is None or not still:
        return out
    rest = [j for j in range(m - 1, -1, -1) if free[j]]
    for i in still:
        if not rest:
            break
        candidates = synonyms(hyp_keys[i])
        for k, j in enumerate(rest):
            if ref_keys[j] in candidates:
                out[i] = (j, SYNONYM)
                del rest[k]
                break
    return out


def _positions(keys: list, indices) -> dict:
    """``key -> [positions]`` of ``keys[j]`` for j in ``indices`` (in their order)."""
    positions: dict = {}
    for j in indices:
        found = positions.get(keys[j])
        if found is None:
            positions[keys[j]] = [j]
        else:
            found.append(j)
    return positions


def _stage(keys: list, order, positions: dict, free: list, out: list, stage: int) -> list:
    """One exact-match stage: each hypothesis position i of ``order`` takes the last free reference
    position whose key equals ``keys[i]`` (``positions``, emptied as it goes); returns the positions left."""
    left = []
    for i in order:
        found = positions.get(keys[i])
        if found:
            j = found.pop()
            free[j] = False
            out[i] = (j, stage)
        else:
            left.append(i)
    return left


def alignment_stats(alignment: list) -> tuple[int, int]:
    """(matches, chunks): chunks = runs of aligned pairs adjacent in both sentences (NLTK ``_count_chunks``;
    0 chunks for 0 matches, where NLTK's 1 never reaches the score)."""
    matches = chunks = 0
    prev_i = prev_j = -2
    for i, (j, _) in enumerate(alignment):
        if j < 0:
            continue
        matches += 1
        if not (i == prev_i + 1 and j == prev_j + 1):
            chunks += 1
        prev_i, prev_j = i, j
    return matches, chunks
