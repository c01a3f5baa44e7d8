#!/usr/bin/env python3
# gemv_index_emulation.py — a desk check of the tuned GEMV's index arithmetic, without a GPU.
#
# Re-states, element by element, which addresses the tuned kernels load (kernels/tuned/gemv.cu,
# gemv_rows.cuh, gemv_t_shapes.cuh) for N (aligned, shifted, element loads; any block, Q, Y, U) and
# for T's shifted and short-column kernels (N's shifted loads: the next vector from the next lane
# of the segment, or loaded by the lane itself), on random shapes with lda > m and A at offsets 0 ... 33
# elements into an allocation of offset + lda n elements (as make_gemv_problem allocates it).
# Checks that every element of A is added exactly once to the right output and that no load
# leaves the allocation. It checks the index arithmetic only: not CUDA semantics, not the
# reductions; the gpu tests do that on a GPU. Keep it in step with the kernels when they change.
# Usage: python3 scripts/probes/gemv_index_emulation.py [seed]
# every element of op(A) x is added exactly once and every load stays inside the allocation.
import random, math, sys
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)

def cdiv(a,b): return (a+b-1)//b

class Mem:
    def __init__(s, m, n, lda, a_off, esize):
        s.m, s.n, s.lda, s.a_off, s.es = m, n, lda, a_off, esize
        s.size = a_off + lda*n           # elements in the allocation (make_gemv_problem)
        s.base_addr = 4096*16            # 16-byte aligned allocation
    def addr(s, e): return s.base_addr + e*s.es   # element index (allocation) -> byte address
    def check(s, e0, cnt, what):
        if e0 < 0 or e0 + cnt > s.size:
            raise Exception(f"{what}: load [{e0},{e0+cnt}) outside [0,{s.size})")
    def mat(s, e):  # allocation element -> (i, j) or None (padding / prefix)
        e -= s.a_off
        if e < 0: return None
        j, i = divmod(e, s.lda)
        return (i, j) if (i < s.m and j < s.n) else None

def emu_n(m, n, lda, a_off, es, K, bx, Q, Y, U):
    W = 1 if K == 0 else 16//es
    mem = Mem(m, n, lda, a_off, es)
    used = {}
    tiles = cdiv(m, bx*W)
    Y = min(Y, max(1, n//Q))
    S = Q*Y; peel = 1 if K == 2 else 0; ke = n - peel
    seg = bx if bx < 32 else 32
    for bxi in range(tiles):
        for by in range(Y):
            for ty in range(Q):
                # shifted: every lane of a segment runs; lanes past m re-read row m - W
                lo_of = {}
                plan = []
                for tx in range(bx):
                    i0 = (bxi*bx + tx)*W; avail = m - i0
                    if avail <= 0 and K != 2: continue
                    i_load = m - W if (K == 2 and avail <= 0) else i0
                    own_hi = (tx % seg == seg - 1) or (i0 + W >= m)
                    j = peel + by*Q + ty
                    cols = cdiv(ke - j, S) if ke > j else 0
                    plan.append((tx, i0, avail, i_load, own_hi, j, cols))
                    lo_of[tx] = [(a_off + i_load + (j + c*S)*lda) for c in range(cols)]
                for (tx, i0, avail, i_load, own_hi, j, cols) in plan:
                    for c in range(cols):
                        jj = j + c*S
                        p = a_off + i_load + jj*lda   # element index of the thread's first row
                        if K == 1:
                            assert mem.addr(p) % 16 == 0, "aligned load not aligned"
                            mem.check(p, W, "aligned")
                            elems = [p+k for k in range(W)]
                        elif K == 0:
                            mem.check(p, 1, "elem"); elems = [p]
                        else:
                            a = mem.addr(p); base = (a & ~15); off = (a & 15)//es
                            be = (base - mem.base_addr)//es
                            mem.check(be, W, "lo")
                            if own_hi:
                                mem.check(be + W, W, "own hi"); hi = be + W
                            else:  # the next lane of the segment supplies its lo
                                nxt = tx + 1
                                assert nxt % seg != 0 and nxt in lo_of, "no neighbour"
                                pn = lo_of[nxt][c]; an = mem.addr(pn)
                                hi = ((an & ~15) - mem.base_addr)//es
                                assert hi == be + W, ("neighbour's lo is not the next vector", hi, be + W)
                            elems = [be + off + k if off + k < W else hi + off + k - W for k in range(W)]
                        for k in range(W):
                            if k < avail:
                                ij = mem.mat(elems[k]); assert ij == (i0+k, jj), (ij, i0+k, jj)
                                used[ij] = used.get(ij, 0) + 1
                    if peel and by == 0 and ty == 0:
                        for k in range(W):
                            if k < avail:
                                for jj in ([0] + ([n-1] if n > 1 else [])):
                                    e = a_off + jj*lda + i0 + k; mem.check(e, 1, "peel")
                                    ij = mem.mat(e); used[ij] = used.get(ij, 0) + 1
    missing = [(i,j) for i in range(m) for j in range(n) if used.get((i,j),0) != 1]
    assert not missing, f"N missing/duplicated {missing[:5]}"

def head_rows(addr, m, es): return min(m, ((16 - (addr & 15)) & 15)//es)

def emu_t_shifted(m, n, lda, a_off, es, Q, C, Yreq):
    W = 16//es; mem = Mem(m, n, lda, a_off, es); used = {}
    tiles = cdiv(n, C); chunk = 32*Q*W
    kpb = cdiv(cdiv(m, Yreq), chunk)*chunk; Y = cdiv(m, kpb)
    for bxi in range(tiles):
        j0 = bxi*C
        cols = [min(j0+c, n-1) for c in range(C)]
        heads = [head_rows(mem.addr(a_off + jc*lda), m, es) for jc in cols]
        nvec = [(m - h)//W for h in heads]
        for by in range(Y):
            per = kpb//W; vb = by*per
            v_full = min(vb+per, min(nvec)); v_end = min(vb+per, max(nvec))
            for tid in range(32*Q):
                v = vb + tid
                while v < v_full or v < v_end:
                    for c in range(C):
                        if v < v_full or v < nvec[c]:
                            e = a_off + cols[c]*lda + heads[c] + v*W
                            assert mem.addr(e) % 16 == 0; mem.check(e, W, "t vec")
                            if j0 + c < n:
                                for k in range(W):
                                    ij = mem.mat(e+k); assert ij == (heads[c]+v*W+k, cols[c])
                                    used[ij] = used.get(ij,0)+1
                    if v >= v_full: break
                    v += 32*Q
                if by == 0 and tid < 2*W:
                    for c in range(C):
                        row = tid if tid < W else heads[c] + nvec[c]*W + (tid - W)
                        if (tid < heads[c]) if tid < W else (row < m):
                            e = a_off + cols[c]*lda + row; mem.check(e, 1, "t peel")
                            if j0 + c < n:
                                ij = mem.mat(e); used[ij] = used.get(ij,0)+1
    missing = [(i,j) for i in range(m) for j in range(n) if used.get((i,j),0) != 1]
    assert not missing, f"T shifted missing/dup {missing[:5]} (m={m} n={n} lda={lda} off={a_off})"

def emu_t_short(m, n, lda, a_off, es, L, C, aligned):
    W = 16//es; mem = Mem(m, n, lda, a_off, es); used = {}; G = 256//L
    for bxi in range(cdiv(n, G*C)):
        for g in range(G):
            j0 = bxi*G*C + g
            cols = [min(j0 + c*G, n-1) for c in range(C)]
            heads = [0 if aligned else head_rows(mem.addr(a_off + jc*lda), m, es) for jc in cols]
            nvec = [(m-h)//W for h in heads]
            for lane in range(L):
                v = lane
                while v < max(nvec):
                    for c in range(C):
                        if v < nvec[c]:
                            e = a_off + cols[c]*lda + heads[c] + v*W
                            assert mem.addr(e) % 16 == 0; mem.check(e, W, "short vec")
                            if j0 + c*G < n:
                                for k in range(W):
                                    ij = mem.mat(e+k); used[ij] = used.get(ij,0)+1
                    v += L
                e_ = lane
                while e_ < 2*W:
                    for c in range(C):
                        row = e_ if e_ < W else heads[c] + nvec[c]*W + (e_ - W)
                        if (e_ < heads[c]) if e_ < W else (row < m):
                            e = a_off + cols[c]*lda + row; mem.check(e,1,"short peel")
                            if j0 + c*G < n:
                                ij = mem.mat(e); used[ij] = used.get(ij,0)+1
                    e_ += L
    missing = [(i,j) for i in range(m) for j in range(n) if used.get((i,j),0) != 1]
    assert not missing, f"T short missing/dup {missing[:5]}"

def loads_kind(m, lda, a_off, es, op):
    W = 16//es
    a_ok = (a_off*es) % 16 == 0 and lda % W == 0
    if a_ok: return 1
    return 2 if (op == 'T' or m >= 2*W) else 0

count = 0
for trial in range(300):
    es = random.choice([4, 8]); W = 16//es
    m = random.choice([1,2,3,5,7,8,9,16,17,31,33,64,65,100,129,257])
    n = random.choice([1,2,3,5,9,17,33,77])
    lda = m + random.choice([0,0,1,2,3,7])
    a_off = random.choice([0,0,1,2,3,5,17,33])
    K = loads_kind(m, lda, a_off, es, 'N')
    bx = random.choice([4,8,16,32,64,128]); Q = random.choice([1,2,4,8]); Y = random.choice([1,2,3,8]); U = random.choice([2,4,8])
    emu_n(m, n, lda, a_off, es, K, bx, Q, Y, U)
    Kt = loads_kind(m, lda, a_off, es, 'T')
    if Kt == 2:
        emu_t_shifted(m, n, lda, a_off, es, random.choice([1,2,4]), random.choice([2,4,8]), random.choice([1,2,3,5]))
    emu_t_short(m, n, lda, a_off, es, random.choice([2,4,8,16]), random.choice([2,4,8]), Kt == 1)
    count += 1
print("ok", count)
