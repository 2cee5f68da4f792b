"""Tools of the cryptobotanists_plant_dna_sequencer domain."""

from collections.abc import Callable
from typing import Any

_TRANSCRIPTION = str.maketrans("ACGT", "UGCA")
_REVERSE_TRANSCRIPTION = str.maketrans("UCAG", "AGTC")
_CODONS = {"AUG": "Methionine", "UUU": "Phenylalanine", "UUC": "Phenylalanine"}


def count_nucleotides(dna_sequence: str) -> dict[str, int]:
    """Count each character of the sequence, in first-seen order, e.g. {'A': 2, 'G': 1}."""
    counts: dict[str, int] = {}
    for char in dna_sequence:
        counts[char] = counts.get(char, 0) + 1
    return counts


def transcribe_dna_to_mrna(dna_sequence: str) -> str:
    """Transcribe DNA to mRNA: A->U, C->G, G->C, T->A."""
    return dna_sequence.translate(_TRANSCRIPTION)


def translate_mrna_to_amino_acid(mrna_sequence: str) -> str:
    """Translate mRNA codon by codon (AUG Methionine, UUU/UUC Phenylalanine, else X), '-'-joined."""
    codons = [mrna_sequence[i : i + 3] for i in range(0, len(mrna_sequence), 3)]
    return "-".join(_CODONS.get(codon, "X") for codon in codons)


def find_max_nucleotide(*args: str | int) -> tuple[str, int]:
    """From k1, v1, k2, v2, ... (e.g. 'A', 3, 'G', 2) return the (key, count) with top count."""
    if not args or len(args) % 2:
        raise ValueError(
            "find_max_nucleotide() takes alternating nucleotide and count arguments "
            f"(k1, v1, k2, v2, ...); got {len(args)} argument(s)"
        )
    counts: dict[str, int] = {}
    for key, count in zip(args[::2], args[1::2], strict=True):
        if not isinstance(key, str) or isinstance(count, bool) or not isinstance(count, int):
            raise ValueError(
                "find_max_nucleotide() expects a str nucleotide followed by its int count, "
                f"got {key!r}, {count!r}"
            )
        counts[key] = count
    best = max(counts, key=lambda key: counts[key])
    return best, counts[best]


def is_valid_dna_sequence(dna_sequence: str) -> bool:
    """True when every character of the sequence is one of A, C, G, T."""
    return set(dna_sequence) <= set("ACGT")


def reverse_transcribe_mrna_to_dna(mrna_sequence: str) -> str:
    """Reverse transcribe mRNA to DNA: U->A, C->G, A->T, G->C."""
    return mrna_sequence.translate(_REVERSE_TRANSCRIPTION)


def make_tools() -> dict[str, Callable[..., Any]]:
    """The domain's tools by name."""
    return {
        "count_nucleotides": count_nucleotides,
        "transcribe_dna_to_mrna": transcribe_dna_to_mrna,
        "translate_mrna_to_amino_acid": translate_mrna_to_amino_acid,
        "find_max_nucleotide": find_max_nucleotide,
        "is_valid_dna_sequence": is_valid_dna_sequence,
        "reverse_transcribe_mrna_to_dna": reverse_transcribe_mrna_to_dna,
    }
