"""Keys of words for phrase matching: spelling-normalised and (for phrases) inflection-stemmed.

Three levels, each applied the same way to the taxonomy's phrases and to the paper's text:

- :func:`text.stem` (plural only: ``policies`` -> ``policy``) keys the corpus statistics
  (``word_stats.json.gz``) and the embedder's vocabulary; unchanged so both stay valid.
- :func:`light_key`: the plural stem with British spellings made American (``-isation`` ->
  ``-ization``, ``-ise/-ised/-ising`` -> ``-ize/...``, ``-yse`` -> ``-yze``, ``-our`` -> ``-or``,
  ``modelling`` -> ``modeling``, ``parametrization`` -> ``parameterization``). One-word phrases
  are matched by this key: a lone word keeps its part of speech (``reasoning`` must not find
  ``reason``, nor ``optimization`` every ``optimized``).
- :func:`phrase_key`: the light key with inflection and a few derivations removed, for the words
  of multi-word phrases, where the other words keep the sense: ``parameterizations``,
  ``parameterized``, ``parameterizing`` -> ``parameteriz``; ``learned``/``learning`` -> ``learn``;
  ``detected``/``detection`` -> ``detect``; ``estimated``/``estimation`` -> ``estim``. The rules
  are a conservative subset of Porter's (steps 1b, 1c, parts of 2, 4 and 5): ``-ing``/``-ed``
  with Porter's undoubling and ``e`` restoration, ``-ied`` -> ``-y``, ``-ization``/``-ize`` ->
  ``-iz``, ``-ation``/``-ate``, ``-ction``, ``-ssion`` only where the rest has two syllables
  (Porter's measure m > 1, so ``relation``, ``station``, ``action`` stay whole), and a final
  ``e`` dropped as in Porter's step 5. Porter's ``-ive``, ``-al``, ``-ent``, ``-ion`` rules are
  left out: they merge ``generative`` with ``general`` and ``distribution`` with ``distributed``.
"""

from __future__ import annotations

from functools import lru_cache

from .text import stem

VOWELS = frozenset("aeiou")
# Common British spellings that no suffix rule catches.
BRITISH = {
    "centre": "center",
    "fibre": "fiber",
    "metre": "meter",
    "programme": "program",
    "catalogue": "catalog",
    "dialogue": "dialog",
    "analogue": "analog",
    "grey": "gray",
    "defence": "defense",
    "offence": "offense",
    "licence": "license",
    "aluminium": "aluminum",
    "travelling": "traveling",
    "artefact": "artifact",
}
# "-ing"/"-ed" words that are not inflections of a shorter word in papers ("meaning" is not a
# form of "mean", "evening" not of "even").
NOT_INFLECTED = frozenset(
    (
        "meaning",
        "evening",
        "morning",
        "during",
        "something",
        "anything",
        "everything",
        "nothing",
        "ceiling",
        "wedding",
        "pudding",
        "embed",
        "imbed",
        "hundred",
        "kindred",
        "sacred",
        "naked",
        "wicked",
        "rugged",
        "ragged",
    )
)
OUR_ENDINGS = ("iour", "bour", "lour", "vour", "mour")  # behaviour, neighbour, colour, ...


def _is_consonant(word: str, i: int) -> bool:
    ch = word[i]
    if ch in VOWELS:
        return False
    if ch == "y":
        return i == 0 or not _is_consonant(word, i - 1)
    return True


def measure(word: str) -> int:
    """Porter's m: the number of vowel-consonant sequences (``tree`` 0, ``trouble`` 1,
    ``private`` 2)."""
    m, prev_vowel = 0, False
    for i in range(len(word)):
        vowel = not _is_consonant(word, i)
        if prev_vowel and not vowel:
            m += 1
        prev_vowel = vowel
    return m


def _has_vowel(word: str) -> bool:
    return any(not _is_consonant(word, i) for i in range(len(word)))


def _ends_cvc(word: str) -> bool:
    """Consonant-vowel-consonant ending, the last not w, x or y (``hop``, ``tun``, ``bas``)."""
    n = len(word)
    return (
        n >= 3
        and _is_consonant(word, n - 1)
        and not _is_consonant(word, n - 2)
        and _is_consonant(word, n - 3)
        and word[-1] not in "wxy"
    )


@lru_cache(maxsize=200_000)
def light_key(word: str) -> str:
    """Plural-stemmed, American-spelled form of a lower-case word."""
    w = stem(word)
    if len(w) < 5 or not w.isalpha():
        return w
    w = BRITISH.get(w, w)
    if "parametri" in w and "parametric" not in w:
        w = w.replace("parametri", "parameteri")  # parametrization = parameterization
    if w.endswith("isation"):
        return w[:-6] + "zation"
    for british, american in (("ise", "ize"), ("ised", "ized"), ("ising", "izing")):
        if w.endswith(british) and len(w) > len(british) + 1:
            return w[: -len(british)] + american
    for british, american in (("yse", "yze"), ("ysed", "yzed"), ("ysing", "yzing")):
        if w.endswith(british):
            return w[: -len(british)] + american
    if w.endswith(OUR_ENDINGS):
        return w[:-2] + "r"
    if w.endswith(("elling", "elled")):
        return w[:-4] + w[-3:]  # modelling -> modeling, labelled -> labeled
    return w


def _strip_inflection(w: str) -> str:
    """Porter 1b/1c: ``-ed``/``-ing`` off with undoubling or ``e`` restored; ``-ied`` -> ``-y``."""
    if w in NOT_INFLECTED or w.endswith("eed"):
        return w
    if w.endswith("ied") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith("ed"):
        root = w[:-2]
    elif w.endswith("ing"):
        root = w[:-3]
    else:
        return w
    if len(root) < 3 or not _has_vowel(root):
        return w  # "red", "using", "string", "bring"
    if root.endswith(("at", "bl", "iz")):
        return root + "e"  # estimated -> estimate, enabled -> enable
    if len(root) > 3 and root[-1] == root[-2] and root[-1] not in "lsz" and root[-1] != "t":
        return root[:-1]  # embedded -> embed, planned -> plan ("setting" stays: not "set")
    if root.endswith("ll"):  # controlled -> control, but installed -> install, called -> call
        return root[:-1] if root.endswith("oll") and measure(root[:-1]) > 1 else root
    if measure(root) == 1 and _ends_cvc(root):
        return root + "e"  # tuned -> tune, based -> base, noted -> note
    return root


@lru_cache(maxsize=200_000)
def phrase_key(word: str) -> str:
    """Inflection-stemmed key of a lower-case word inside a multi-word phrase."""
    w = light_key(word)
    if len(w) < 5 or not w.isalpha():
        return w
    w = _strip_inflection(w)
    if w.endswith("ization") and measure(w[:-7]) > 0:
        w = w[:-5] + "e"  # -ization -> -ize (then -ize -> -iz below)
    elif w.endswith("ation") and measure(w[:-5]) > 1:
        w = w[:-5] + "ate"  # estimation -> estimate (-> estim below)
    elif w.endswith(("ction", "ssion")) and measure(w[:-3]) > 1:
        return w[:-3]  # detection -> detect, compression -> compress
    if w.endswith("ate") and measure(w[:-3]) > 1:
        return w[:-3]  # estimate -> estim, aggregate -> aggreg
    if w.endswith("e") and len(w) > 4:
        root = w[:-1]
        if measure(root) > 1 or (measure(root) == 1 and not _ends_cvc(root)):
            return root  # parameterize -> parameteriz, encode -> encod; "tune", "base" stay
    return w
