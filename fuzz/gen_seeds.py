#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the seed corpora of the fuzz harnesses.

    python3 fuzz/gen_seeds.py OUTDIR [model|profile|ds|script|netburst...]
        # writes OUTDIR/<harness>/seed-* (default: every harness); the
        # build runs it (fuzz/CMakeLists.txt: <build>/fuzz/seeds/), so the
        # seeds are not kept in the repository
    python3 fuzz/gen_seeds.py --regressions
        # rewrites the regression inputs this file states (ds_regressions,
        # SCRIPT_REGRESSIONS, regressions()) in fuzz/regressions/, and
        # ds_open() in fuzz/regressions-open/: those are kept in the tree

seeds/profile: profile strings (every preset, aliases, every key, and one
string for each reason spmu_profile_validate refuses a profile).

seeds/model: byte programs in the layout fuzz_model.c decodes (see the comment
at its top): a profile byte (preset, perturbations) and a sequence of
operations. Every preset gets the same scenarios: counting to overflow
with PMIs near the deadline, fixed counters, freeze on PMI, an MSR sweep
with raw and valid values, RDPMC forms, the host path, snapshots (restore,
damaged, truncated), RESET/INIT/CPUID, edge/CMASK/INV, AnyThread; a few
custom profiles cover 32/64-bit counters, 8 threads, v5 fixed bitmaps.

seeds/ds: byte programs in the layout fuzz_ds.c decodes (see the comment
at its top): for each of its profiles, PEBS records up to a full buffer,
each memory callback failing in turn, BTS (circular, BTINT, BTS_OFF_OS),
the DS area across 4 GiB and at the edges of the address space, adaptive
groups, load latency, IA-32e mode on 32-bit layouts, NetBurst threads.

seeds/script: every examples/scripts/*.pmu and SCRIPT_SEEDS, small valid
scripts (each statement and option) and each kind of parse error.

seeds/netburst: fuzz_netburst.c reads any bytes as a program (byte 0 picks
the preset, then LP, opcode and operand bytes), so its seeds are byte
strings of a fixed pseudo-random sequence, 16 to 400 bytes, half on each
preset.

The inputs the fuzzer found stay in fuzz/corpus/<harness>/ (named by their
SHA-1; scripts/fuzz minimises them against these seeds). Keep this in step
with the decoders of fuzz_model.c and fuzz_ds.c.
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PRESETS = ["core-duo", "core2", "nehalem", "sandybridge", "haswell",
           "skylake", "icelake", "sapphirerapids"]
# Per preset: (GP counters, fixed counters, threads, AnyThread usable)
SHAPE = {
    "core-duo": (2, 0, 1, False), "core2": (2, 3, 1, False),
    "nehalem": (4, 3, 2, True), "sandybridge": (4, 3, 2, True),
    "haswell": (4, 3, 2, True), "skylake": (4, 3, 2, True),
    "icelake": (8, 4, 2, False), "sapphirerapids": (8, 4, 2, False),
}

# op_table indices in fuzz_model.c
WRMSR, DS_SETUP, RDMSR, RDPMC, HOST_WRMSR, DELIVER = 0, 1, 2, 3, 4, 5
DEADLINE, SNAPSHOT, RESET, INIT, CPUID, PROGRAM, ACK = 8, 9, 10, 11, 12, 13, 15
# key indices in fuzz_model.c's keys[]
KEYS = ["version", "gp", "gp_width", "fixed", "fixed_mask", "fixed_width",
        "events", "unavailable", "perf_capabilities", "threads", "pdcm", "ds",
        "dtes64", "ds_cpl", "bts", "pebs", "rtm", "pt", "sgx", "uncore_pmi",
        "precise_store", "any_deprecated"]

PMC0, EVTSEL0, FIXED_CTR0 = 0xC1, 0x186, 0x309
FIXED_CTR_CTRL, STATUS, CTRL, OVF = 0x38D, 0x38E, 0x38F, 0x390
STATUS_SET, INUSE, DEBUGCTL, MISC = 0x391, 0x392, 0x1D9, 0x1A0
PEBS_ENABLE, DATA_CFG, LD_LAT, FRONTEND = 0x3F1, 0x3F2, 0x3F6, 0x3F7
A_PMC0, DS_AREA, PERF_METRICS, PERFCAP = 0x4C1, 0x600, 0x329, 0x345

USR, OS, EDGE, INT, ANY, EN, INV = (1 << 16, 1 << 17, 1 << 18, 1 << 20,
                                    1 << 21, 1 << 22, 1 << 23)


class Prog:
    """A model input under construction."""

    def __init__(self, preset, perturb=()):
        i = PRESETS.index(preset)
        self.b = bytearray([i | (len(perturb) << 6)])
        for key, val in perturb:
            self.b += bytes([KEYS.index(key)] + list(val))

    def u8(self, v):
        self.b.append(v & 0xFF)
        return self

    def u16(self, v):
        self.b += struct.pack("<H", v & 0xFFFF)
        return self

    def u32(self, v):
        self.b += struct.pack("<I", v & 0xFFFFFFFF)
        return self

    def u64(self, v):
        self.b += struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)
        return self

    def addr(self, a):
        return self.u8(0xE0).u32(a)  # selector 224: any 32-bit address

    # value modes of pick_value()
    def raw(self, v):
        return self.u8(0).u64(v)

    def valid(self, v):
        return self.u8(1).u64(v)

    def wrmsr(self, msr, v, lp=0, host=False):
        return self.u8(HOST_WRMSR if host else WRMSR).u8(lp).addr(msr).raw(v)

    def wrvalid(self, msr, v, lp=0):
        return self.u8(WRMSR).u8(lp).addr(msr).valid(v)

    def rdmsr(self, msr, lp=0):
        return self.u8(RDMSR).u8(lp).addr(msr)

    def rdpmc(self, ecx, cpl=0, pce=False, lp=0):
        self.u8(RDPMC).u8(lp).u8(3).u8(cpl | (4 if pce else 0))
        return self.u32(ecx)

    def clock(self, lines, cpl=3, flags=0, mem=None, branch=None):
        """lines: (event, umask, count) triples, explicit events;
        mem: None or (offset into guest memory, latency, store);
        branch: None or (from offset, to offset, predicted)."""
        self.u8(len(lines))
        for ev, um, cnt in lines:
            self.u8(3).u8(ev).u8(um)
            if cnt == 1:
                self.u8(0)
            elif cnt < 256:
                self.u8(2).u8(cnt)
            else:
                self.u8(3).u32(cnt)
        self.u8(cpl).u8(flags)
        m = 0
        if mem is not None:
            m |= 1 | (2 if mem[2] else 0) | 0x30
        if branch is not None:
            m |= 4 | (0x40 if branch[2] else 0)
        self.u8(m)
        if mem is not None:
            self.u16(mem[0]).u8(mem[1])
        if branch is not None:
            self.u16(branch[0]).u16(branch[1])
        return self

    def deliver(self, lines, clocks, cpl=3, flags=0, lp=0, mem=None,
                branch=None):
        """clocks: an int, 'max', or 'near' (+k: 0 before, 1 at, 2 after)."""
        self.u8(DELIVER).u8(lp).clock(lines, cpl, flags, mem, branch)
        if clocks == "max":
            return self.u8(6)
        if isinstance(clocks, tuple):
            return self.u8(7).u8(clocks[1])
        if clocks == 1:
            return self.u8(0)
        if clocks <= 256:
            return self.u8(2).u8(clocks - 1)
        if clocks <= 65536:
            return self.u8(4).u16(clocks - 1)
        return self.u8(5).u64(clocks)

    def deadline(self, lines, lp=0):
        return self.u8(DEADLINE).u8(lp).clock(lines)

    def program(self, which, period, event=(1, 0x03), lp=0):
        """which: bit 6 fixed, bit 5 INT/PMI, bit 4 freeze, low bits index.
        event: (arch_events index, flag byte) for evtsel_value()."""
        if period > 256:
            which |= 0x80
        self.u8(PROGRAM).u8(lp).u8(which)
        if which & 0x80:
            self.u16(period - 1)
        else:
            self.u8(period - 1)
        return self.u8(event[0]).u8(event[1]).u8(0)

    def ds_setup(self, narrow=False, fail=0, slot=0, maximum=0x3C00,
                 threshold=0x3C00, period=10, pebs_en=(1, 0), cfg=0, lp=0,
                 bts=0, bts_slot=0, bts_max=0xFF, bts_thr=0xFF):
        """bts: bit 0 on, bit 1 BTINT, bit 2 BTS_OFF_OS, bit 3 BTS_OFF_USR.
        bts_max, bts_thr: in units of 2 bytes past the BTS base."""
        self.u8(DS_SETUP).u8(lp)
        self.u8((1 if narrow else 0) | bts << 1 | fail << 6)
        self.u8(slot).u16(maximum).u16(threshold).u8(period - 1)
        self.u8(pebs_en[0]).u8(cfg).u8(pebs_en[1])
        return self.u8(bts_slot).u8(bts_max).u8(bts_thr)

    def ack(self, lp=0):
        return self.u8(ACK).u8(lp)

    def snapshot(self, mode, *operands):
        self.u8(SNAPSHOT).u8(mode)
        for kind, v in operands:
            getattr(self, kind)(v)
        return self

    def reset(self):
        return self.u8(RESET)

    def init(self, lp=0):
        return self.u8(INIT).u8(lp)

    def cpuid(self, leaf, lp=0):
        if leaf == 1:
            return self.u8(CPUID).u8(lp).u8(0)
        if leaf == 0xA:
            return self.u8(CPUID).u8(lp).u8(1)
        return self.u8(CPUID).u8(lp).u8(2).u32(leaf)


INST = (0xC0, 0x00)
CYC = (0x3C, 0x00)
BR = (0xC4, 0x00)


def scenarios(preset):
    gp, nfixed, threads, anythread = SHAPE[preset]
    out = {}

    # Count instructions on PMC0 to overflow with a PMI, stop at the
    # deadline, acknowledge, go on.
    p = Prog(preset)
    p.program(0x20, 100)
    p.deadline([INST + (3,)])
    p.deliver([INST + (3,)], ("near", 0))
    p.deliver([INST + (3,)], ("near", 1))
    p.rdmsr(STATUS).ack().rdmsr(STATUS)
    p.deliver([INST + (3,), BR + (1,)], 1000)
    p.deliver([INST + (1,)], "max")
    out["count-pmi"] = p

    # Fixed counters with PMI, huge batches.
    p = Prog(preset)
    for j in range(max(nfixed, 1)):
        p.program(0x60 | j, 1000)
    p.deliver([INST + (4,), CYC + (1,), (0, 3, 1), (0, 4, 4)], ("near", 1))
    p.ack()
    p.deliver([INST + (4,), CYC + (1,), (0, 3, 1), (0, 4, 4)], 1 << 40)
    p.deliver([(0, 3, 0xFFFFFFFF)], "max", cpl=0)
    out["fixed"] = p

    # Freeze on PMI (legacy clears GLOBAL_CTRL, v4 sets CTR_Frz).
    p = Prog(preset)
    p.program(0x30, 10)
    p.program(0x31, 5000, event=(0, 0x03))
    p.deliver([INST + (1,), CYC + (1,)], 100)
    p.rdmsr(STATUS).rdmsr(CTRL).rdmsr(DEBUGCTL)
    p.deliver([INST + (1,)], 100)
    p.wrmsr(OVF, 1 << 59 | 1 << 58 | 1)
    p.deliver([INST + (1,)], 100)
    out["freeze"] = p

    # Every architectural MSR: valid bits, all ones, raw values.
    p = Prog(preset)
    msrs = ([PMC0 + i for i in range(gp)] + [EVTSEL0 + i for i in range(gp)]
            + [FIXED_CTR0 + j for j in range(nfixed)]
            + [FIXED_CTR_CTRL, STATUS, CTRL, OVF, STATUS_SET, INUSE, MISC,
               DEBUGCTL, PEBS_ENABLE, DATA_CFG, LD_LAT, FRONTEND, PERFCAP,
               A_PMC0, DS_AREA, PERF_METRICS])
    for m in msrs:
        p.wrvalid(m, 0xFFFFFFFFFFFFFFFF)
        p.rdmsr(m)
    for m in msrs[:8]:
        p.wrmsr(m, 0x8000000000000001)
    p.wrmsr(DS_AREA, 0x0000800000000000)  # non-canonical
    p.wrmsr(DS_AREA, 0xFFFF800000001000)
    p.wrmsr(MISC, 0)
    p.rdmsr(0x12345678).wrmsr(0xC0000080, 1)
    out["msr-sweep"] = p

    # Every value mode of pick_value() on every MSR of the list (selector
    # bytes below 224 index the profile's own list).
    p = Prog(preset)
    for sel in range(40):
        mode = sel % 8
        p.u8(WRMSR if sel % 3 else HOST_WRMSR).u8(sel % threads).u8(sel)
        p.u8(mode)
        if mode in (0, 1):
            p.u64(0x5555AAAA5555AAAA ^ sel)
        elif mode == 2:
            p.u8(sel).u8(0x2B).u8(0x81).u8(0x11).u8(0x22)
        elif mode in (3, 4):
            p.u8(sel * 7)
        if sel % 5 == 4:
            p.deliver([INST + (1,), CYC + (1,)], 1 << 20)
    out["value-modes"] = p

    # RDPMC: each form, each CPL, with and without CR4.PCE.
    p = Prog(preset)
    p.wrmsr(PMC0, 0x87654321)
    for ecx in (0, 1, gp - 1 if gp else 0, gp, 0x40000000, 0x40000002,
                0x40000003, 0x40000010, 0x20000000, 0x80000000, 0x60000000,
                0x40000000 | 0x20000000, 0xFFFFFFFF):
        p.rdpmc(ecx)
        p.rdpmc(ecx, cpl=3)
        p.rdpmc(ecx, cpl=3, pce=True)
    out["rdpmc"] = p

    # Host path: GLOBAL_STATUS, full-width counters, read-only registers.
    p = Prog(preset)
    p.wrmsr(STATUS, 0xFFFFFFFFFFFFFFFF, host=True)
    p.wrmsr(STATUS, 0x3, host=True)
    p.wrmsr(PMC0, 0xFFFFFFFFFFFF, host=True)
    p.wrmsr(PMC0, 0x1000000000000, host=True)
    p.wrmsr(PERFCAP, 0, host=True)
    p.wrmsr(INUSE, 0, host=True)
    p.wrmsr(STATUS_SET, 1 << 62 | 1, host=True)
    p.wrmsr(OVF, 1 << 62, host=True)
    p.wrmsr(FIXED_CTR0, 0xFFFFFFFFFFF0, host=True)
    p.deliver([INST + (32,)], 1)
    out["host"] = p

    # Snapshots: stash, run, restore; damaged and truncated blobs.
    p = Prog(preset)
    p.program(0x20, 50)
    p.snapshot(0)
    p.deliver([INST + (7,)], 1000)
    p.snapshot(1)
    p.snapshot(2, ("u16", 0), ("u8", 0x80))
    p.snapshot(2, ("u16", 20), ("u8", 1))
    p.snapshot(2, ("u16", 0xFFFF), ("u8", 0xFF))
    p.snapshot(3, ("u16", 0))
    p.snapshot(3, ("u16", 9))
    out["snapshot"] = p

    # RESET, INIT, CPUID.
    p = Prog(preset)
    p.program(0x20, 3)
    p.deliver([INST + (1,)], 10)
    p.init().reset().cpuid(1).cpuid(0xA).cpuid(0x7).cpuid(0x80000001)
    p.rdmsr(CTRL).rdmsr(MISC)
    out["reset-init-cpuid"] = p

    # Edge detect, CMASK, INV, OS/USR, IN_TX, SMM / enclave flags.
    p = Prog(preset)
    sel = 0xC0 | USR | OS | EN
    p.wrmsr(EVTSEL0, sel | EDGE | (2 << 24))
    if gp > 1:
        p.wrmsr(EVTSEL0 + 1, sel | INV | (3 << 24))
    p.wrmsr(CTRL, 0xFFFFFFFFFFFFFFFF & ((1 << gp) - 1))
    for cnt in (0, 1, 2, 5, 2, 0):
        p.deliver([INST + (cnt,)] if cnt else [], 1)
    p.deliver([INST + (4,)], 77, cpl=0)
    p.deliver([INST + (4,)], 9, flags=7)
    p.wrmsr(EVTSEL0, sel | (1 << 32))
    p.deliver([INST + (1,)], 3, flags=1)
    p.wrmsr(DEBUGCTL, 1 << 14)
    p.deliver([INST + (1,)], 3, flags=4)
    out["edge-cmask"] = p

    # PEBS: a DS area, PEBS on PMC0 (and fixed 0 with the baseline
    # layout), overflow arms it, the next event writes a record; the
    # threshold raises OvfBuf and a PMI; a full buffer loses records; failed
    # memory accesses; the 32-bit layout; adaptive groups.
    if preset != "core-duo":
        p = Prog(preset)
        p.ds_setup(maximum=0x1800, threshold=0x600, pebs_en=(1, 1),
                   cfg=0x3F)
        p.wrmsr(EVTSEL0, 0xC0 | USR | OS | EN)
        p.wrmsr(EVTSEL0, 0xC0 | USR | OS | EN | (1 << 34))  # #GP before ICL
        p.wrmsr(PMC0, 0xFFFFFFF0)
        p.wrmsr(CTRL, 1 | 1 << 32)
        p.wrmsr(FIXED_CTR_CTRL, 0x3 | 1 << 32)
        for _ in range(6):
            p.deliver([INST + (3,)], 100, mem=(0x100, 40, False))
            p.rdmsr(STATUS)
        p.ack()
        p.ds_setup(maximum=0x100, period=3)  # full: records are lost
        p.deliver([INST + (1,)], 50)
        p.ds_setup(narrow=True, slot=2, maximum=0x80, period=3)
        p.deliver([INST + (1,)], 50, flags=0)
        p.deliver([INST + (1,)], 50, flags=8)
        p.ds_setup(fail=1, period=2)
        p.deliver([INST + (1,)], 20)
        p.ds_setup(fail=2, period=2)
        p.deliver([INST + (1,)], 20)
        out["pebs"] = p

    # BTS: circular without BTINT, stopped when full with it, threshold
    # PMI, CPL filters, the 32-bit layout, failed writes.
    p = Prog(preset)
    br = (0x10, 0x80, True)
    p.ds_setup(bts=1, bts_max=36, bts_thr=30, pebs_en=(0, 0))
    p.deliver([INST + (1,)], 20, branch=br)
    p.rdmsr(STATUS).ack()
    p.ds_setup(bts=1 | 2, bts_max=36, bts_thr=0xFF, pebs_en=(0, 0))
    p.deliver([INST + (1,)], 3, branch=br)  # fills the buffer
    p.deliver([INST + (1,)], 1, branch=br)  # BTINT: no record past max
    # Was a defect, now fixed: a batch reported SPMU_TICK_BTS although its
    # last clock stored no record (BTINT, buffer full).
    p.deliver([INST + (1,)], 20, branch=br)
    p.deliver([INST + (1,)], "max", branch=br)
    p.ds_setup(bts=1 | 4, pebs_en=(0, 0))
    p.deliver([], 3, cpl=0, branch=br)
    p.deliver([], 3, cpl=3, branch=br)
    p.ds_setup(bts=1 | 8, narrow=True, bts_max=40, pebs_en=(0, 0))
    p.deliver([], 30, cpl=3, branch=br)
    p.deliver([], 30, cpl=0, branch=br, flags=8)
    p.ds_setup(bts=1, fail=2, pebs_en=(0, 0))
    p.deliver([], 5, branch=br)
    out["bts"] = p

    # AnyThread: LP1's counter counts LP0's events.
    if anythread and threads > 1:
        p = Prog(preset)
        p.wrmsr(PMC0, 0xFFFFFFF0, lp=1)
        p.wrmsr(EVTSEL0, 0xC0 | USR | OS | EN | INT | ANY, lp=1)
        p.wrmsr(FIXED_CTR_CTRL, 0x7 | 0x8, lp=1)
        p.wrmsr(CTRL, 1 << 32 | 1, lp=1)
        p.wrmsr(FIXED_CTR0, 0xFFFFFFFFFFF0, lp=1)
        p.deliver([INST + (1,)], 100, lp=0)
        p.deliver([INST + (1,)], ("near", 1), lp=0)
        p.rdmsr(STATUS, lp=1).ack(lp=1)
        p.program(0x20, 2, lp=0)
        p.deliver([INST + (3,)], 1000, lp=0)
        out["anythread"] = p

    return out


def custom_profiles():
    """Perturbed presets: (base, [(key, value bytes)])."""
    w = {32: 1, 40: 3, 48: 5, 64: 7}  # widths[] indices
    return {
        "skylake-gp8-1t": ("skylake", [("gp", [8]), ("threads", [1])]),
        "skylake-w32": ("skylake", [("gp_width", [w[32]]),
                                    ("fixed_width", [w[32]])]),
        "haswell-w64": ("haswell", [("gp_width", [w[64]]),
                                    ("fixed_width", [w[64]])]),
        "core2-8t": ("core2", [("threads", [8])]),
        "icelake-fixmask": ("icelake", [("fixed_mask", [0x0D, 0x00]),
                                        ("perf_capabilities", [0, 0, 0, 0,
                                                               0])]),
        "sapphire-nopmc": ("sapphirerapids", [("gp", [0])]),
        "nehalem-v4": ("nehalem", [("version", [4])]),
        "skylake-nodtes64": ("skylake", [("dtes64", [0])]),
        "icelake-nodtes64": ("icelake", [("dtes64", [0])]),
    }


def custom_scenario(name, base, perturb):
    p = Prog(base, perturb)
    if "nodtes64" in name:  # the 32-bit DS layout, then IA-32e mode
        p.ds_setup(narrow=True, maximum=0x400, threshold=0x100)
        p.wrmsr(EVTSEL0, 0xC0 | USR | OS | EN)
        p.wrmsr(PMC0, 0xFFFFFFFE)
        p.wrmsr(CTRL, 1)
        p.deliver([INST + (1,)], 30)
        p.deliver([INST + (1,)], 30)
        p.deliver([INST + (1,)], 30, flags=8)
        return p
    p.program(0x20, 2)
    p.program(0x60, 3)
    p.deliver([INST + (1,), CYC + (1,)], ("near", 1))
    p.ack()
    p.wrmsr(PMC0, 0xFFFFFFFFFFFFFFFF, host=True)
    p.wrmsr(FIXED_CTR0, 0xFFFFFFFFFFFFFFFF, host=True)
    p.deliver([INST + (1,), CYC + (1,)], "max")
    p.snapshot(0).reset().snapshot(1)
    return p


PROFILE_SEEDS = [
    # presets and aliases
    *PRESETS, "yonah", "merom", "nhm", "snb", "hsw", "skl", "icl", "spr",
    "SKYLAKE", "  skylake  ",
    # every key from a preset
    "base=skylake,gp=8,threads=1",
    "base=core2,name=my-core_2.0+x",
    "version=2,gp=2,gp_width=40,fixed=3,fixed_width=40",
    "version=5,gp=4,fixed_mask=0x5",
    "version=3 gp=4 gp_width=48 fixed=3 events=7 unavailable=0x40",
    "base=icelake,perf_capabilities=0x4000,pdcm=1,ds=1,pebs=1",
    "base=sandybridge,precise_store=0,uncore_pmi=0,rtm=1,pt=0,sgx=0",
    "base=haswell,dtes64=0,ds_cpl=0,bts=0",
    "base=icelake,any_deprecated=0",
    "version=0,threads=8",
    "version=1,gp=8,gp_width=64",
    "version=5,gp=8,fixed_mask=0xFFFF,fixed_width=32",
    "name=a,version=4,gp=1,fixed=1,events=32,unavailable=0xFFFFFFFF",
    # each refusal of spmu_profile_validate / the parser
    "name=bad!name,version=2",
    "threads=0", "threads=9", "version=6", "version=2,gp=9",
    "version=0,gp=1", "version=2,gp=1,gp_width=31", "version=2,gp=1,gp_width=65",
    "version=1,fixed=1", "version=4,fixed_mask=0x5", "version=2,fixed=9",
    "version=5,fixed_mask=0x10000",
    "version=5,fixed_mask=0x100,perf_capabilities=0x4400,pebs=1,ds=1",
    "version=2,fixed=1,fixed_width=16",
    "events=33", "events=4,unavailable=0x10",
    "perf_capabilities=0x1,pdcm=0", "perf_capabilities=0x40000",
    "perf_capabilities=0x500", "perf_capabilities=0x400",
    "perf_capabilities=0x4000", "version=5,fixed=3,perf_capabilities=0x8000",
    "pebs=1", "version=1,ds=1,pebs=1",
    "version=2,ds=1,pebs=1,precise_store=1",
    "version=4,any_deprecated=1", "version=2,uncore_pmi=1",
    "base=skylake,gp=8,base=icelake", "base=nosuch", "nosuch",
    "skylake,gp=2", "gp", "=4", "gp=", "gp=-1", "gp=+1", "gp=0x", "gp=1x",
    "gp=99999999999999999999999", "unknown=1", "pdcm=2", "fixed=33",
    "name=abcdefghijklmnopqrstuvwxyz0123456789", "", " ,, ",
]


# ---- fuzz_ds.c ---------------------------------------------------------------

# profiles[] in fuzz_ds.c
DS_PROFILES = [
    "core-duo", "core2", "nehalem", "sandybridge", "haswell", "skylake",
    "icelake", "sapphirerapids", "pentium4", "pentium4-noht",
    "base=skylake,dtes64=0", "base=core2,dtes64=0", "base=icelake,dtes64=0",
    "base=pentium4,dtes64=1", "base=pentium4-noht,ds_cpl=1,dtes64=1",
    "base=icelake,perf_capabilities=0x30c5",
    "base=haswell,perf_capabilities=0x3284", "base=nehalem,threads=4",
    "base=skylake,gp_width=32,fixed_width=32",
    "base=sapphirerapids,gp_width=64,fixed_width=64,threads=1",
]
NARROW = {"core-duo", "pentium4", "pentium4-noht", "base=skylake,dtes64=0",
          "base=core2,dtes64=0", "base=icelake,dtes64=0"}
NETBURST = {"pentium4", "pentium4-noht", "base=pentium4,dtes64=1",
            "base=pentium4-noht,ds_cpl=1,dtes64=1"}
BASELINE = {"icelake", "sapphirerapids", "base=icelake,dtes64=0",
            "base=sapphirerapids,gp_width=64,fixed_width=64,threads=1"}
# op_table indices in fuzz_ds.c
(DS_SET_AREA, DS_FIELDS, DS_POKE, DS_DEBUGCTL, DS_PEBS_REGS, DS_PROGRAM,
 DS_DELIVER) = range(7)
DS_HOST_COUNTER, DS_WRMSR, DS_ACK, DS_MEM, DS_STATE = 9, 10, 11, 12, 13
# events[] in fuzz_ds.c
EV_INST, EV_CYC, EV_REF, EV_SLOTS, EV_BR, EV_LDLAT, EV_LOADS = range(7)
# window_base selectors: 0x10000, the next 4 KiB, across 4 GiB, the null
# page; or the edges of the address space.
LOW_WINDOWS = [(1, 0), (9,), (2,), (0,)]
EDGE_WINDOWS = [(3,), (6,), (4,), (5,)]
TR, BTS, BTINT, OFF_OS, OFF_USR, FREEZE = 1, 2, 4, 8, 16, 32


class DsProg(Prog):
    """A fuzz_ds input under construction."""

    def __init__(self, profile, windows=LOW_WINDOWS):
        self.b = bytearray([DS_PROFILES.index(profile)])
        for w in windows:
            self.b += bytes(w)
        self.nb = profile in NETBURST

    def at(self, win, off):
        """An address in window win (pick_addr's first cases)."""
        return self.u8(win << 4).u16(off)

    def ds_area(self, win=0, off=0, lp=0):
        return self.u8(DS_SET_AREA).u8(lp).u8(0).at(win, off)

    def fv(self, spec):
        """A field_value: k records on, or (kind, ...)."""
        if isinstance(spec, int):
            return self.u8(spec << 3)
        kind = spec[0]
        if kind == "mis":
            return self.u8(spec[1] << 3 | 2).u8(spec[2])
        if kind == "short":
            return self.u8(spec[1] << 3 | 3)
        if kind == "below":
            return self.u8(spec[1] << 3 | 4)
        if kind == "huge":
            return self.u8(spec[1] << 3 | 5)
        return self.u8(6).u8(12).u64(spec[1])  # any 64-bit value

    def fields(self, narrow, bts=None, pebs=None, reset=None, lp=0):
        """bts, pebs: (window, base offset, index, maximum, threshold) with
        fv specs relative to base, index, index; reset: the reset value is
        -reset."""
        f = (1 if narrow else 0) | (0 if bts else 2) | (0 if pebs else 4)
        f |= 8 if reset is None else 0
        self.u8(DS_FIELDS).u8(lp).u8(f)
        for buf in (bts, pebs):
            if buf:
                self.at(buf[0], buf[1]).fv(buf[2]).fv(buf[3]).fv(buf[4])
        if reset is not None:
            self.u8(0).u8(reset - 1)
        return self

    def poke(self, field, value, narrow=False, lp=0):
        """Field 0-7 (8+: reset slot) = a 64-bit value."""
        return self.u8(DS_POKE).u8(lp).u8(field | (0x80 if narrow else 0))\
            .u8(3).u64(value)

    def debugctl(self, bits, lp=0):
        return self.u8(DS_DEBUGCTL).u8(lp).u8(bits)

    def pebs_enable(self, lo, hi=0, mid=0, lp=0):
        return self.u8(DS_PEBS_REGS).u8(lp).u8(0).u8(lo).u8(hi).u8(mid)

    def data_cfg(self, groups, lbr=0, lp=0):
        return self.u8(DS_PEBS_REGS).u8(lp).u8(1).u8(groups).u8(lbr)

    def program(self, which=0x10, event=EV_INST, k=2, lp=0):
        """which: low 3 bits counter, 8 fixed, 0x10 PMI, 0x20 ADAPTIVE,
        0x40 load latency."""
        return self.u8(DS_PROGRAM).u8(lp).u8(which).u8(event).u8(k - 1)

    def deliver(self, lines=((EV_INST, 1),), clocks=1, fail=None, cpl=3,
                ia32e=False, mem=None, branch=None, arch=False, lp=0):
        """lines: (events[] index, count 1-3); mem: (window, offset,
        latency); branch: (window, offset of the target, predicted);
        clocks: n, 'max' or ('near', k); fail: None or (mode, bits)."""
        nb = self.nb and not arch
        self.u8(DS_DELIVER).u8(lp).u8(1 if arch else 0)
        if nb:
            self.u8(0).u8(0)  # no lines; a replay-tagged load retiring
        else:
            self.u8(len(lines))
            for ev, cnt in lines:
                self.u8(ev).u8({1: 3, 2: 1, 3: 2}[cnt])
        m = cpl | (4 if ia32e else 0) | (16 if mem else 0)
        m |= (32 if branch else 0) | (128 if branch and branch[2] else 0)
        self.u8(m)
        if mem:
            self.at(mem[0], mem[1]).u8(4).u16(mem[2])
        if branch:
            self.u16(0x1000).at(branch[0], branch[1])
        if clocks == "max":
            self.u8(6)
        elif isinstance(clocks, tuple):
            self.u8(7).u8(clocks[1])
        elif clocks == 1:
            self.u8(0)
        elif clocks <= 256:
            self.u8(2).u8(clocks - 1)
        else:
            self.u8(4).u16(clocks - 1)
        if fail is None:
            return self.u8(0)
        self.u8(fail[0])
        return self.u32(fail[1]) if fail[0] >= 4 else self

    def host_counter(self, which, dist, lp=0):
        return self.u8(DS_HOST_COUNTER).u8(lp).u8(which).u8(dist)

    def ack(self, lp=0):
        return self.u8(DS_ACK).u8(lp)

    def state(self, seed, nlbr):
        return self.u8(DS_STATE).u64(seed).u8(nlbr)


def ds_scenarios(profile):
    """Each profile: PEBS records to a full buffer, every callback failing
    in turn, BTS circular and with BTINT, the edges of the address space,
    adaptive groups, IA-32e mode on 32-bit layouts."""
    narrow = profile in NARROW
    out = {}
    # PEBS buffer: 6 records at 0x11400, threshold after 1; BTS buffer: 3
    # records at 0x11000, threshold past the maximum.
    bts = (1, 0, 0, 3, 4)
    pebs = (1, 0x400, 0, 6, 1)

    def setup(p, reset=3, which=0x10, event=EV_INST):
        p.ds_area().fields(narrow, bts, pebs, reset).state(0x1234, 4)
        return p.program(which, event, 2)

    p = setup(DsProg(profile))
    for n in (4, 1, ("near", 1), 40, "max", 3):
        p.deliver(clocks=n)
    out["pebs"] = p.ack().deliver(clocks=("near", 2))

    for k in range(6):
        p = setup(DsProg(profile))
        for mode in (4, 7):
            p.deliver(clocks=3, fail=(mode, 1 << k if mode == 4 else k))
            p.deliver(clocks=("near", 1), fail=(5 if k % 2 else 6, 1 << k))
        out["pebs-fail-%d" % k] = p.deliver(clocks=3)

    p = DsProg(profile).ds_area()
    p.fields(narrow, bts, (1, 0x400, 0, 0, 0), 3).program(0x10, EV_INST, 1)
    p.deliver(clocks=4)
    p.fields(narrow, None, (1, 0x400, 0, ("short", 1), 0), None)
    p.program(0x10, EV_INST, 1).deliver(clocks=4)
    p.fields(narrow, None, (1, 0x400, ("huge", 0), ("huge", 0), 0), None)
    out["pebs-full"] = p.program(0x10, EV_INST, 1).deliver(clocks=4)

    p = DsProg(profile).ds_area().fields(narrow, bts, pebs, 3)
    p.debugctl(TR | BTS)
    for i in range(5):
        p.deliver(branch=(1, 0x100 * i, i & 1), clocks=1 + i)
    p.debugctl(TR | BTS | BTINT)
    for i in range(4):
        p.deliver(branch=(2, 0x10 * i, 0), clocks=2)
    p.debugctl(TR | BTS | OFF_OS)
    p.deliver(branch=(0, 0, 1), cpl=0).deliver(branch=(0, 0, 1), cpl=3)
    out["bts"] = p

    p = DsProg(profile).ds_area().fields(narrow, bts, pebs, 3)
    p.debugctl(TR | BTS)
    for k in range(4):
        p.deliver(branch=(1, 0x40, 1), fail=(4, 1 << k))
    out["bts-fail"] = p.deliver(branch=(1, 0x40, 1), fail=(6, 3))

    p = setup(DsProg(profile)).debugctl(TR | BTS | BTINT)
    p.deliver(clocks=("near", 1), branch=(1, 8, 1))
    p.deliver(clocks=("near", 1), branch=(1, 8, 1), fail=(7, 4))
    out["pebs-and-bts"] = p.deliver(clocks=2, branch=(1, 8, 1))

    # The DS area across 4 GiB, then at the edges of the address space.
    p = DsProg(profile)
    p.ds_area(2, 0x7F8).fields(narrow, (2, 0x100, ("mis", 1, 3), 4, 1),
                               (2, 0x200, 0, ("below", 1), 2), 7)
    p.program().deliver(clocks=4).ds_area(2, 0x7E0)
    p.fields(narrow, (2, 0x100, 0, 2, 9), (2, 0x300, 0, 4, 1), 7)
    out["edge-4g"] = p.program().debugctl(TR | BTS).deliver(
        clocks=3, branch=(2, 0, 0))
    p = DsProg(profile, EDGE_WINDOWS)
    p.ds_area(1, 0xFC0).fields(narrow, (1, 0x100, 0, 4, 1),
                               (0, 0x800, 0, 3, 1), 9)
    p.program().debugctl(TR | BTS).deliver(clocks=3, branch=(1, 0, 1))
    p.ds_area(0, 0xFF0).fields(narrow, (0, 0, ("u64", 2**64 - 8), 0, 0),
                               (3, 0, ("huge", 0), ("u64", 2**64 - 1), 0), 9)
    out["edge-top"] = p.program().deliver(clocks=3, branch=(2, 0, 1))

    if profile in BASELINE:
        p = DsProg(profile).ds_area().fields(narrow, bts, (1, 0x400, 0, 1, 0),
                                             5)
        for groups, lbr, which in ((0xF, 3, 0x30), (0x3, 0, 0x10),
                                   (0x9, 31, 0x38), (0x5, 7, 0x18)):
            p.data_cfg(groups, lbr).program(which, EV_INST, 2)
            p.deliver(clocks=3, lines=((EV_INST, 1), (EV_REF, 1),
                                       (EV_SLOTS, 2)))
            p.fields(narrow, None, (1, 0x400, 0, 2, 1), None)
        out["adaptive"] = p
    if narrow:
        p = DsProg(profile).ds_area().fields(False, bts, pebs, 3)
        p.program().debugctl(TR | BTS)
        for n in (1, 2, 3):
            p.deliver(clocks=n, ia32e=True, branch=(1, 0x20 * n, 1))
        out["ia32e"] = p
    if profile not in NETBURST and profile != "core-duo":
        p = DsProg(profile).ds_area().fields(narrow, bts, pebs, 3)
        p.pebs_enable(0x0F, 0x0F).program(0x50, EV_LDLAT, 2)
        for lat in (2, 100, 1000):
            p.deliver(clocks=4, lines=((EV_LDLAT, 1), (EV_INST, 2)),
                      mem=(3, 0x40, lat))
        p.host_counter(1, 3).host_counter(0x80, 0)
        out["load-latency"] = p.ack().deliver(clocks=("near", 0))
    if profile in NETBURST:
        p = setup(DsProg(profile))
        p.deliver(clocks=3, arch=True, branch=(1, 0, 1)).debugctl(TR | BTS)
        p.deliver(clocks=3, arch=True, branch=(1, 0, 1))
        p.deliver(clocks=3, branch=(1, 0, 1), lp=1)
        out["netburst-threads"] = p.program(0x10, EV_INST, 3, lp=1).deliver(
            clocks=5, lp=1)
    return out


def ds_open():
    """Inputs of fuzz_ds that show open defects (regressions-open/ds)."""
    return {}


# ---- fuzz_script.c -----------------------------------------------------------

# Small scripts beside examples/scripts/*.pmu: valid ones (each statement
# and option), and each kind of error the parser reports.
SCRIPT_SEEDS = {
    "empty": "",
    "comment-only": "# nothing\n\n   # more\n",
    "cpu-only": "cpu skylake\n",
    "cpu-custom": "cpu base=skylake,gp=8,threads=1\nexpect IA32_PMC7 == 0\n",
    "cpu-threads": "cpu base=nehalem threads=4\nlp 3\nrdmsr IA32_PMC0\n",
    "wrmsr-fields":
        "cpu skylake\nwrmsr IA32_PERFEVTSEL0 event=0xc0 usr=1 os=1 en=1\n"
        "wrmsr IA32_PERF_GLOBAL_CTRL EN_PMC0=1\ndeliver instructions:3 x 5\n"
        "expect IA32_PMC0 == 15\nexpect IA32_PERFEVTSEL0.EN == 1\n",
    "host-wrmsr":
        "cpu haswell\nhost-wrmsr IA32_PERF_GLOBAL_STATUS 0x1\nexpect ok\n"
        "host-wrmsr IA32_PERF_CAPABILITIES 0\nexpect fault\n",
    "rdpmc": "cpu skylake\nrdpmc 0 cpl=3 pce=1\nexpect ok\nrdpmc 0x40000000\n"
             "rdpmc 0x80000000 cpl=3\nexpect fault\n"
             "expect rdpmc 0x40000001 == 0\n",
    "negative": "cpu core2\nwrmsr IA32_PMC0 -2\nexpect IA32_PMC0 == -2\n"
                "wrmsr IA32_PERFEVTSEL0 event=0xc0 usr=1 int=1 en=1\n"
                "wrmsr IA32_PERF_GLOBAL_CTRL 1\ndeliver instructions x 3\n"
                "expect pmis == 1\nreset-pmis\nexpect pmis == 0\n",
    "deliver-options":
        "cpu skylake\ndeliver 0xc0/0x00:3 cycles:2 ref-cycles cpl=0 tx enclave "
        "smm ia32e mem=0x1000 lat=30 src=2 store branch=0x1->0x2 predicted x "
        "7\ndeliver unhalted-core-cycles:1 x 18446744073709551615\n",
    "signals": "cpu skylake\nsignal topa\nsignal uncore\nsignal condchgd\n"
               "expect IA32_PERF_GLOBAL_STATUS.CondChgd == 1\n",
    "memory":
        "cpu skylake\nmemory 0x1000 0x1000\nmemory 0xfffffffffffff000 0x1000\n"
        "poke 0x1000 0x2000\npoke 0x1ff8 0xff size=1\n"
        "poke 0xfffffffffffffff8 1\nexpect mem 0x1000 == 0x2000\n"
        "expect mem 0x1ff8 == 0xff size=1\nstate rip=1 next=2 rflags=0x2 "
        "tsc=9 rax=1 rbx=2 rcx=3 rdx=4 rsi=5 rdi=6 rbp=7 rsp=8 r8=9 r15=10\n",
    "pebs-p4":
        "cpu pentium4-noht\nmemory 0x10000 0x2000\npoke 0x10010 0x11000 size=4\n"
        "poke 0x10014 0x11000 size=4\npoke 0x10018 0x11100 size=4\n"
        "poke 0x1001c 0x11028 size=4\nwrmsr IA32_DS_AREA 0x10000\n"
        "wrmsr MSR_DEBUGCTLA TR=1 BTS=1\n"
        "deliver branch=0x401000->0x402000 x 3\nexpect bts-records == 0\n"
        "expect lost == 0\n",
    "pebs-adaptive":
        "cpu icelake\nmemory 0x10000 0x4000\npoke 0x10020 0x11000\n"
        "poke 0x10028 0x11000\npoke 0x10030 0x13000\npoke 0x10038 0x11100\n"
        "wrmsr IA32_DS_AREA 0x10000\nwrmsr MSR_PEBS_DATA_CFG 0x300000f\n"
        "wrmsr IA32_PMC0 -1\nwrmsr IA32_PERFEVTSEL0 0x4004300c0\n"
        "wrmsr IA32_PEBS_ENABLE 1\nwrmsr IA32_PERF_GLOBAL_CTRL 1\n"
        "deliver instructions mem=0x5000 x 3\nexpect pebs-records == 1\n",
    "pebs-lost":
        "cpu skylake\nmemory 0x10000 0x100\npoke 0x10020 0x20000\n"
        "poke 0x10028 0x20000\npoke 0x10030 0x21000\n"
        "wrmsr IA32_DS_AREA 0x10000\nwrmsr IA32_PMC0 -1\n"
        "wrmsr IA32_PERFEVTSEL0 event=0xc0 usr=1 en=1\nwrmsr IA32_PEBS_ENABLE 1\n"
        "wrmsr IA32_PERF_GLOBAL_CTRL 1\ndeliver instructions x 3\n"
        "expect lost == 1\n",
    "expect-fails": "cpu skylake\nexpect IA32_PMC0 == 1\nexpect pmis == 0\n",
    "freeze-v4":
        "cpu skylake\nwrmsr IA32_DEBUGCTL FREEZE_PERFMON_ON_PMI=1\n"
        "wrmsr IA32_FIXED_CTR0 -3\nwrmsr IA32_FIXED_CTR_CTRL EN0=3 PMI0=1\n"
        "wrmsr IA32_PERF_GLOBAL_CTRL EN_FIXED_CTR0=1\n"
        "deliver instructions:2 x 10\n"
        "wrmsr IA32_PERF_GLOBAL_STATUS_RESET 0x8000000000000000\n",
    "crlf": "cpu skylake\r\nrdmsr 0x38f\r\n\texpect ok   # tabs\r\n",
    "err-unknown-statement": "cpu skylake\nfrobnicate 1 2\nwrmsrr 0x1\n",
    "err-unknown-msr": "wrmsr IA32_PMC99 1\nrdmsr IA32_PERFEVTSEL\n",
    "err-field": "wrmsr IA32_PERFEVTSEL0 evnt=1 usr=2 +en=1 =3 x\n",
    "err-number": "wrmsr IA32_PMC0 0xg\nwrmsr IA32_PMC0 -0\n"
                  "wrmsr IA32_PMC0 99999999999999999999\n",
    "err-cpu": "rdmsr 0x38f\ncpu skylake\n",
    "err-cpu-unknown": "cpu pentium5\nrdmsr 0xc1\n",
    "err-lp": "cpu skylake\nlp 2\nlp x\nlp\nlp 1 2\n",
    "err-deliver": "deliver x\ndeliver x 0\ndeliver foo/bar:9999999999 cpl=4 "
                   "cpl=1 lat=3 store predicted branch=1 branch=1->\n"
                   "deliver 0x100/0 x 1 x 2\n",
    "err-memory": "memory 0x1000 0\nmemory 0x1000 0x2000000\n"
                  "memory 0xffffffffffffffff 2\nmemory 0x1000 0x1000\n"
                  "memory 0x1800 0x1000\npoke 0x5000 1\npoke 0x1000 0x1ff "
                  "size=1\npoke 0x1000 1 size=3\n",
    "err-expect": "expect\nexpect fault\nexpect foo\nexpect pmis == x\n"
                  "expect rdpmc 0 = 1\nexpect mem 0x0 == 1\n"
                  "expect IA32_PMC0.FOO == 1\nexpect IA32_PMC0 == 0x1000000000000\n",
    "err-state": "state rip=1 rip=2 foo=3 rax\n",
    "err-signal": "cpu core2\nsignal topa\nsignal nothing\nsignal\n",
    "err-long-word": "wrmsr " + "A" * 300 + " 1\n",
    "err-many-words": "deliver" + " cycles" * 130 + "\n",
    "err-too-many": "".join("bogus%d\n" % i for i in range(25)),
}


# Inputs of fuzz_script that showed how the tool behaves where the harness
# has to allow for it (regressions/script, replayed): a script whose run
# never ends (a 32-bit counter wrapping at every clock of 2^64 - 1: the
# runner has no bound; the harness's MAX_CALLS stops it), and one whose
# last line reports errors past the parser's limit of 20 (each followed by
# another "too many errors" line).
SCRIPT_REGRESSIONS = {
    "run-wraps-every-clock":
        "cpu base=skylake,gp_width=32\n"
        "wrmsr IA32_PERFEVTSEL0 event=0xc0 usr=1 en=1\n"
        "deliver instructions:4294967295 instructions:4294967295 "
        "x 18446744073709551615\n",
    "errors-past-the-limit":
        "".join("bogus%d\n" % i for i in range(19)) +
        "deliver foo bar baz qux\n",
}


def ds_regressions():
    """fuzz_ds inputs kept in regressions/ds (replayed)."""
    out = {}
    # Found by fuzz_ds: MSR_PEBS_DATA_CFG.LBR_ENTRIES = 255 (256 entries)
    # made the adaptive record overrun its buffer in src/arch/ds.c (a
    # 6,608-byte record in 1,232 bytes: it wrote over the record's length
    # and came out 448 bytes, its header saying so). Now 32 entries at
    # most (docs/decisions.md #65): 1,232 bytes.
    p = DsProg("icelake", [(1, 0), (9,), (9,), (9,)]).ds_area()
    p.data_cfg(0xF, 0xFF)
    p.fields(False, None, (1, 0, 0, 1, 2), 3).program(0x30, EV_INST, 1)
    out["adaptive-lbr-entries-256"] = p.deliver(clocks=1).deliver()
    # A PEBS assist whose field read fails and a branch record stored in
    # the same clock: ds-fault-state compares the core with a reference
    # whose PEBS assist finds no room and whose BTS store succeeds.
    p = DsProg("skylake").ds_area().fields(False, (1, 0, 0, 3, 9),
                                            (1, 0x400, 0, 6, 1), 3)
    p.program(0x10, EV_INST, 1).debugctl(TR | BTS)
    p.deliver(clocks=1)  # the overflow: PMC0 armed
    p.deliver(branch=(1, 0x80, 1), fail=(7, 0))
    p.deliver(branch=(1, 0x80, 1), fail=(7, 3))
    out["pebs-fails-bts-stores"] = p.deliver(branch=(1, 0x80, 1))
    return out


def script_seeds():
    out = {}
    ex = os.path.join(HERE, "..", "examples", "scripts")
    for name in sorted(os.listdir(ex)):
        if name.endswith(".pmu"):
            with open(os.path.join(ex, name), "rb") as f:
                out["example-" + name[:-4]] = f.read()
    for name, text in SCRIPT_SEEDS.items():
        out[name] = text.encode()
    return out


def regressions():
    """Inputs that show open library defects (not in the corpus, so that
    the test run stays green; move them there once fixed)."""
    return {}


def netburst_seeds():
    """Byte strings of a fixed xorshift64 sequence, sizes 16-400, byte 0's
    bit 0 alternating the two presets (fuzz_netburst.c)."""
    out = {}
    x = 0x9E3779B97F4A7C15
    for i in range(64):
        n = (16, 48, 96, 200, 400)[i % 5]
        b = bytearray()
        for _ in range(n):
            x ^= (x << 13) & 0xFFFFFFFFFFFFFFFF
            x ^= x >> 7
            x ^= (x << 17) & 0xFFFFFFFFFFFFFFFF
            b.append(x & 0xFF)
        b[0] = (b[0] & 0xFE) | (i & 1)
        out["%02d" % i] = bytes(b)
    return out


HARNESSES = ("model", "profile", "ds", "script", "netburst")


def seeds_of(harness):
    """{name: bytes} of one harness's seeds."""
    out = {}
    if harness == "model":
        for preset in PRESETS:
            for name, prog in scenarios(preset).items():
                out["%s-%s" % (preset, name)] = bytes(prog.b)
        for name, (base, perturb) in custom_profiles().items():
            out["custom-" + name] = bytes(
                custom_scenario(name, base, perturb).b)
    elif harness == "profile":
        for i, s in enumerate(PROFILE_SEEDS):
            out["%03d" % i] = s.encode()
    elif harness == "ds":
        for i, profile in enumerate(DS_PROFILES):
            for name, prog in ds_scenarios(profile).items():
                out["%02d-%s" % (i, name)] = bytes(prog.b)
    elif harness == "script":
        out = script_seeds()
    else:
        out = netburst_seeds()
    return out


def write_seeds(outdir, harness):
    d = os.path.join(outdir, harness)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        if f.startswith("seed-"):
            os.remove(os.path.join(d, f))
    seeds = seeds_of(harness)
    for name, data in seeds.items():
        with open(os.path.join(d, "seed-" + name), "wb") as f:
            f.write(data)
    return len(seeds)


def write_inputs(dirname, inputs):
    if not inputs:
        return
    os.makedirs(dirname, exist_ok=True)
    for name, data in inputs.items():
        with open(os.path.join(dirname, name), "wb") as f:
            f.write(data)


def write_regressions():
    write_inputs(os.path.join(HERE, "regressions", "model"),
                 {k: bytes(v.b) for k, v in regressions().items()})
    write_inputs(os.path.join(HERE, "regressions", "ds"),
                 {k: bytes(v.b) for k, v in ds_regressions().items()})
    write_inputs(os.path.join(HERE, "regressions-open", "ds"),
                 {k: bytes(v.b) for k, v in ds_open().items()})
    write_inputs(os.path.join(HERE, "regressions", "script"),
                 {k: v.encode() for k, v in SCRIPT_REGRESSIONS.items()})


def main():
    usage = ("usage: gen_seeds.py OUTDIR [model|profile|ds|script|netburst...]"
             "\n       gen_seeds.py --regressions")
    if sys.argv[1:] == ["--regressions"]:
        write_regressions()
        return
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        sys.exit(usage)
    which = sys.argv[2:] or list(HARNESSES)
    for h in which:
        if h not in HARNESSES:
            sys.exit(usage)
    for h in which:
        write_seeds(sys.argv[1], h)


if __name__ == "__main__":
    main()
