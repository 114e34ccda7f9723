#!/usr/bin/env python3
"""Write the seed corpora of the fuzz harnesses.

    python3 fuzz/gen_seeds.py      # rewrites fuzz/corpus/{model,profile}/seed-*

corpus/profile: profile strings (every preset, aliases, every key, and one
string for each reason spmu_profile_validate refuses a profile).

corpus/model: byte programs in the layout fuzz_model.c decodes (see the
comment at its top): a profile byte (preset, perturbations) and a sequence
of operations. Every preset gets the same scenarios: counting to overflow
with PMIs near the deadline, fixed counters, freeze on PMI, an MSR sweep
with raw and valid values, RDPMC forms, the host path, snapshots (restore,
damaged, truncated), RESET/INIT/CPUID, edge/CMASK/INV, AnyThread; a few
custom profiles cover 32/64-bit counters, 8 threads, v5 fixed bitmaps.

Files the fuzzer adds (named by their SHA-1) are left alone; only seed-*
files are rewritten. Keep this in step with fuzz_model.c's decoder.
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
    # Was a defect until d984a93: a batch reported SPMU_TICK_BTS although
    # its last clock stored no record (BTINT, buffer full).
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


def regressions():
    """Inputs that show open library defects (not in the corpus, so that
    the test run stays green; move them there once fixed)."""
    return {}


def write(dirname, name, data):
    path = os.path.join(HERE, "corpus", dirname, "seed-" + name)
    with open(path, "wb") as f:
        f.write(data)


def main():
    for d in ("model", "profile"):
        os.makedirs(os.path.join(HERE, "corpus", d), exist_ok=True)
        for f in os.listdir(os.path.join(HERE, "corpus", d)):
            if f.startswith("seed-"):
                os.remove(os.path.join(HERE, "corpus", d, f))
    n = 0
    for preset in PRESETS:
        for name, prog in scenarios(preset).items():
            write("model", "%s-%s" % (preset, name), bytes(prog.b))
            n += 1
    for name, (base, perturb) in custom_profiles().items():
        write("model", "custom-" + name,
              bytes(custom_scenario(name, base, perturb).b))
        n += 1
    for i, s in enumerate(PROFILE_SEEDS):
        write("profile", "%03d" % i, s.encode())
    rdir = os.path.join(HERE, "regressions", "model")
    for name, prog in regressions().items():
        os.makedirs(rdir, exist_ok=True)
        with open(os.path.join(rdir, name), "wb") as f:
            f.write(bytes(prog.b))
    print("wrote %d model seeds, %d profile seeds" % (n, len(PROFILE_SEEDS)),
          file=sys.stderr)


if __name__ == "__main__":
    main()
