"""The solver's transposition table: two-slot buckets of packed uint64 entries holding score bounds.

Entry layout (one uint64, so a probe touches one cache line per bucket):

    bits  0- 6  lower bound + 64         (0 means "no lower bound" = -64)
    bits  7-13  64 - upper bound         (0 means "no upper bound" = +64)
    bits 14-17  best column + 1          (0 = none)
    bits 18-23  stones on the board      (fewer stones = bigger subtree = kept longer)
    bits 24-27  generation               (entries of an older generation count as empty)
    bits 28-63  tag                      (with the bucket index, the whole key: no false hits)

Keys go through a bijection first, h = key * odd constant mod 2**key_bits: the bucket index is h's top
bits (where a multiplication mixes all of the key's bits) and the tag its low bits, so (index, tag)
still names one key. A prime bucket count and key % buckets did the same job with two divisions per
probe; a power of two and a multiplication are cheaper.

An all-zero slot therefore reads as "nothing known", whatever key it is probed with.

Several threads may probe and store at once (a threaded solve, engine/solver.py), with no lock. That is
safe because an entry is one aligned 64-bit word, read and written whole (relaxed atomic loads and
stores: single instructions on x86-64 and aarch64, which the compiler may neither split nor repeat), and
it carries its own key: a probe sees some thread's whole entry for that key or none. Every entry's bounds
are facts about its position, whichever root or thread proved them, so an entry lost to a racing store,
or a key held in both slots with different bounds, costs only work: a probe never reads a wrong score. Clearing the
table moves to the next generation instead of wiping 64 MB (which would also flush the CPU caches);
every 15th clear wipes for real, so a generation number is never reused while its entries remain.
Slot 0 of a bucket keeps the entry with the fewest stones (the most work), slot 1 the newest.
Both bounds are kept, so the null-window probes at different scores all reuse one entry.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import leading_zeros
from numba.extending import intrinsic

NO_LOWER = -64
NO_UPPER = 64
ENTRY_BYTES = 8
TAG_BITS = 36
GENERATIONS = 16
_TAG_SHIFT = np.uint64(28)
_GEN_SHIFT = np.uint64(24)
_LOW7 = np.uint64(0x7F)
_LOW4 = np.uint64(0xF)
_LOW6 = np.uint64(0x3F)
_GENERATION = np.uint64(0xF) << _GEN_SHIFT
_LABEL = ~np.uint64(0xFFFFFF)  # tag and generation
_ONE = np.uint64(1)
_TWO = np.uint64(2)
_SIXTY_FOUR = np.uint64(64)
_MIXER = np.uint64(0x9E3779B97F4A7C15)  # odd, so multiplying by it is a bijection modulo any power of two
_HUGE_PAGE = 2 * 2**20
_MADV_HUGEPAGE = 14  # Linux's madvise advice number


def cache_sized_mb() -> float:
    """The CPU's L2 cache of one core in MB, as Linux reports it; 1 MB where it does not say.

    Why: a probe of a table that stays in L2 answers in a few nanoseconds, one of a table in memory in
    about a hundred, and a solver node is little more than a probe: the time saved outweighs the extra
    nodes a smaller table costs.
    """
    try:
        for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
            if (index / "level").read_text().strip() == "2" and (index / "type").read_text().strip() != "Instruction":
                size = (index / "size").read_text().strip().upper()
                scale = {"K": 2**10, "M": 2**20}.get(size[-1:], 1)
                return max(0.125, int(size.rstrip("KM")) * scale / 2**20)
    except (OSError, ValueError):
        pass  # not Linux, or a cache it does not describe: the common size
    return 1.0


def mb_for_key_bits(key_bits: int) -> float:
    """The smallest table that stores keys of `key_bits` bits whole (no false hits)."""
    buckets = 1 << max(1, key_bits - TAG_BITS)
    return buckets * 2 * ENTRY_BYTES / 2**20


class TranspositionTable:
    """The table's memory: `size_mb` megabytes of uint64 entries, two per bucket."""

    def __init__(self, size_mb: float = 64.0) -> None:
        if not size_mb > 0:
            raise ValueError(f"table size {size_mb!r} MB is not positive: give a size such as 64")
        self.buckets = 1 << max(1, (int(size_mb * 2**20) // (2 * ENTRY_BYTES)).bit_length() - 1)
        self.entries = huge_page_array(2 * self.buckets)
        self.generation = 1

    def clear(self) -> None:
        """Forget everything (entries stay valid across positions, so this is only for cold starts)."""
        self.generation = next_generation(self.entries, self.generation)

    def max_key_bits(self) -> int:
        """Keys up to this many bits are stored without any chance of a false hit."""
        return TAG_BITS + self.buckets.bit_length() - 1

    @property
    def size_mb(self) -> float:
        return self.entries.nbytes / 2**20


def huge_page_array(length: int) -> np.ndarray:
    """A zeroed uint64 array on 2 MB pages where the system grants them (Linux's transparent huge pages,
    asked for with madvise), else on ordinary pages.

    Why: a probe lands on a random page of the table; with 4 KB pages nearly every probe also misses the
    CPU's address cache (TLB), a second wait on top of the entry's own miss. Written in full now (not
    np.zeros' lazy pages): a page first touched mid-search costs a page fault, far more than a small search.
    """
    buffer = np.empty(length + _HUGE_PAGE // ENTRY_BYTES, dtype=np.uint64)
    skip = (-buffer.ctypes.data % _HUGE_PAGE) // ENTRY_BYTES
    entries = buffer[skip : skip + length]
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.madvise(ctypes.c_void_p(entries.ctypes.data), ctypes.c_size_t(entries.nbytes), _MADV_HUGEPAGE)
    except (OSError, AttributeError):
        pass  # no madvise here: ordinary pages, the table works the same, a little slower
    entries.fill(0)
    return entries


@njit(cache=True)
def next_generation(entries: np.ndarray, generation: int) -> int:
    """The generation after `generation`: the table reads as empty; wipes for real when the numbers run out."""
    generation += 1
    if generation == GENERATIONS:
        entries[:] = 0
        generation = 1
    return generation


@njit(cache=True)
def bucket_of(entries: np.ndarray, generation: np.uint64, key: np.uint64, key_bits: int) -> tuple[np.uint64, np.uint64]:
    """(index of the bucket's first slot, the label its entry for `key` carries); keys are below 2**key_bits."""
    index_bits = np.uint64(63) - leading_zeros(np.uint64(entries.shape[0] // 2))
    bits = np.uint64(key_bits)
    mixed = (key * _MIXER) << (_SIXTY_FOUR - bits) >> (_SIXTY_FOUR - bits)  # modulo 2**key_bits
    tag_bits = bits - index_bits if bits > index_bits else np.uint64(0)
    tag = mixed & ((_ONE << tag_bits) - _ONE)
    return (mixed >> tag_bits) * _TWO, (tag << _TAG_SHIFT) | (generation << _GEN_SHIFT)


@intrinsic
def _prefetch_slot(typingctx, entries, index):
    """Ask the CPU to start loading entries[index] into the cache (LLVM's prefetch); no effect on values."""

    def codegen(context, builder, signature, args):
        address = _slot_address(context, builder, signature.args[0], args)
        prefetch = cgutils.get_or_insert_function(
            builder.module,
            ir.FunctionType(ir.VoidType(), [ir.IntType(8).as_pointer()] + [ir.IntType(32)] * 3),
            "llvm.prefetch.p0i8",
        )
        builder.call(
            prefetch,
            [
                builder.bitcast(address, ir.IntType(8).as_pointer()),
                ir.IntType(32)(0),
                ir.IntType(32)(3),
                ir.IntType(32)(1),
            ],
        )
        return context.get_dummy_value()

    return types.void(entries, index), codegen


@intrinsic
def _load_whole(typingctx, entries, index):
    """entries[index] read in one 64-bit load (relaxed atomic: never torn, never read twice)."""

    def codegen(context, builder, signature, args):
        return builder.load_atomic(_slot_address(context, builder, signature.args[0], args), "monotonic", ENTRY_BYTES)

    return types.uint64(entries, index), codegen


@intrinsic
def _store_whole(typingctx, entries, index, value):
    """entries[index] = value in one 64-bit store (relaxed atomic: no other thread sees half of it)."""

    def codegen(context, builder, signature, args):
        address = _slot_address(context, builder, signature.args[0], args)
        builder.store_atomic(args[2], address, "monotonic", ENTRY_BYTES)
        return context.get_dummy_value()

    return types.void(entries, index, types.uint64), codegen


def _slot_address(context, builder, array_type, args):
    """The address of entries[index] in generated code (args: the array, then the index)."""
    array = context.make_array(array_type)(context, builder, args[0])
    return cgutils.get_item_pointer(context, builder, array_type, array, [args[1]], wraparound=False)


@njit(cache=True)
def prefetch(entries: np.ndarray, key: np.uint64, key_bits: int) -> None:
    """Start loading `key`'s bucket, so that a probe a little later finds it in the cache."""
    _prefetch_slot(entries, bucket_of(entries, np.uint64(0), key, key_bits)[0])


@njit(cache=True)
def probe(entries: np.ndarray, generation: np.uint64, key: np.uint64, key_bits: int) -> tuple[int, int, int]:
    """(lower bound, upper bound, best column or -1) stored for `key`; (-64, 64, -1) when unknown."""
    slot, label = bucket_of(entries, generation, key, key_bits)
    for i in range(2):
        entry = _load_whole(entries, slot + np.uint64(i))
        if entry & _LABEL == label:
            lower = np.int64(entry & _LOW7) - 64
            upper = 64 - np.int64((entry >> np.uint64(7)) & _LOW7)
            column = np.int64((entry >> np.uint64(14)) & _LOW4) - 1
            return lower, upper, column
    return NO_LOWER, NO_UPPER, -1


@njit(cache=True)
def store(
    entries: np.ndarray,
    generation: np.uint64,
    key: np.uint64,
    key_bits: int,
    lower: int,
    upper: int,
    column: int,
    stones: int,
) -> None:
    """Record bounds for `key`, tightening what is already known about it; keeps the biggest subtree in slot 0.

    The column kept is the one that proved the higher lower bound (a root's solve names it as its perfect
    move): threads at different null windows may store a weaker bound after a stronger one."""
    slot, label = bucket_of(entries, generation, key, key_bits)
    target = slot + _ONE
    for i in range(2):
        entry = _load_whole(entries, slot + np.uint64(i))
        if entry & _LABEL == label:
            known_lower = np.int64(entry & _LOW7) - 64
            if column < 0 or lower < known_lower:  # the column stays with the lower bound it proves
                column = np.int64((entry >> np.uint64(14)) & _LOW4) - 1
            lower = max(lower, known_lower)
            upper = min(upper, 64 - np.int64((entry >> np.uint64(7)) & _LOW7))
            target = slot + np.uint64(i)
            break
    else:
        first = _load_whole(entries, slot)
        if first & _GENERATION != generation << _GEN_SHIFT:
            target = slot
        elif np.int64((first >> np.uint64(18)) & _LOW6) >= stones:
            _store_whole(entries, slot + _ONE, first)  # the displaced entry gets a second life in slot 1
            target = slot
    _store_whole(
        entries,
        target,
        label
        | (np.uint64(stones) << np.uint64(18))
        | (np.uint64(column + 1) << np.uint64(14))
        | (np.uint64(64 - upper) << np.uint64(7))
        | np.uint64(lower + 64),
    )
