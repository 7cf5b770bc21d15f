"""The weight-load forms compared on the fit set alone before the per-rank form was chosen
(bench/README.md, "The weight-load rule's second round"): the script's own fit and mirror,
changed by flags. Reads measurements.csv only, never held_out.csv.

    python3 bench/weight_load_forms.py [--burst build/burst] [-v] [FLAG ...]

FLAG: per_rank_disk, per_rank_pc, per_rank_stream_pc (the three committed forms), net_fit (the
network volume's rate fitted instead of its cited prior). Prints the weight-load fit error, the
leave-one-source-out error, the LOSO rows within 20% and the row count. The grids are
validate_cost_model.py's own."""
import sys, math, statistics, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_cost_model as vc
import validate_weight_load as v
BURST = sys.argv[sys.argv.index("--burst") + 1] if "--burst" in sys.argv else "build/burst"
pts = v.load_points(vc.load(vc.CSV), lambda r: vc.burst(BURST, vc.args_of(r)))
FORM=dict(per_rank_disk=False, per_rank_pc=False, per_rank_stream_pc=False, net_fit=False)
def lrate(p, r):
    g=p["gpus"]
    if p["loader"]=="streaming":
        if p["kind"] in ("local-disk","network"):
            agg = p["disk"] or r[p["kind"]]
            return agg
        if p["kind"]=="hub": return max(r["hub-streaming"], r["hub"]*p["bytes"]/v.hub_busiest_bytes(p))
        if p["kind"]=="page-cache":
            return r["page-cache-streaming"]*(g if FORM["per_rank_stream_pc"] else 1)
        if p["kind"]=="s3": return r["s3-streaming"]
    cap = r["ceiling"]*(g if FORM["per_rank_disk"] else 1)
    if p["kind"]=="local-disk": return min(p["disk"] or r["local-disk"], cap)
    if p["kind"]=="network": return min(p["disk"], cap) if p["disk"] else (min(r["network"],cap) )
    if p["kind"]=="hub": return r["hub"]*p["bytes"]/v.hub_busiest_bytes(p)
    if p["kind"]=="page-cache": return r["page-cache"]*(g if FORM["per_rank_pc"] else 1)
    return r[p["kind"]]
def lmirror(p, fitted):
    r, L = fitted
    read = p["bytes"]/lrate(p, r)
    if p["download"]: return read
    f, c = L[p["loader"]]
    return read + f + c*p["bytes"]/1e9/p["gpus"]
PCG = v.PAGE_CACHE_GRID
CG = v.CEILING_GRID
def load_fit(pts):
    r=dict(v.LOAD_PRIORS, **{"page-cache":PCG[-1],"ceiling":CG[-1]})
    L={}
    def cost(ps,f,c,rr): return sum(abs(math.log(lmirror(p,(rr,{p["loader"]:(f,c)}))/p["meas"])) for p in ps)
    known=("network","local-disk","page-cache")
    if FORM["net_fit"]:
        known=("local-disk","page-cache","network-rated")
    st=[p for p in pts if p["loader"]=="safetensors" and not p["download"] and (p["kind"] in known or (p["kind"]=="network" and (p["disk"] or not FORM["net_fit"])))]
    best=None
    for pc in PCG:
        for ce in CG:
            rr=dict(r,**{"page-cache":pc,"ceiling":ce})
            for f in v.FIXED_GRID:
                for c in v.PER_GB_GRID:
                    e=cost(st,f,c,rr)
                    if best is None or e<best[0]-1e-12: best=(e,f,c,pc,ce)
    _,f,c,r["page-cache"],r["ceiling"]=best; L["safetensors"]=(f,c)
    pt=[p for p in pts if p["loader"]=="pytorch" and p["kind"] in ("network","local-disk","page-cache")]
    L["pytorch"]=(f, min((cost(pt,f,k*0.1,r),k*0.1) for k in range(1001))[1]) if pt else L["safetensors"]
    sm=[p for p in pts if p["loader"]=="streaming" and p["kind"] in ("network","local-disk")]
    L["streaming"]=min((cost(sm,a*0.05,b*0.005,r),a*0.05,b*0.005) for a in range(41) for b in range(41))[1:] if sm else (0,0)
    kinds=["hub","s3","hub-streaming","s3-streaming","page-cache-streaming"]+(["network"] if FORM["net_fit"] else [])
    for kind in kinds:
        s=kind.endswith("-streaming"); base=kind[:-10] if s else kind
        vals=[]
        for p in pts:
            if p["kind"]!=base or (p["loader"]=="streaming")!=s: continue
            if kind=="network" and p["disk"]: continue
            init=0 if p["download"] else L[p["loader"]][0]+L[p["loader"]][1]*p["bytes"]/1e9/p["gpus"]
            if p["meas"]>init:
                busy=v.hub_busiest_bytes(p) if kind=="hub" else p["bytes"]
                if (kind=="page-cache-streaming" and FORM["per_rank_stream_pc"]): busy=p["bytes"]/p["gpus"]
                vals.append(busy/(p["meas"]-init))
        fb=r[base] if s else (v.LOAD_FALLBACK.get(kind, r.get(kind)))
        r[kind]=statistics.median(vals) if vals else fb
    return r,L
def run(verbose=False):
    full=load_fit(pts); fe=[];le=[]; per=[]
    for src in sorted({p["source"] for p in pts}):
        rest=load_fit([p for p in pts if p["source"]!=src])
        for p in pts:
            if p["source"]==src:
                a=(lmirror(p,full)-p["meas"])/p["meas"]; b=(lmirror(p,rest)-p["meas"])/p["meas"]
                fe.append(abs(a)); le.append(abs(b)); per.append((p,a,b))
    if verbose:
        for p,a,b in sorted(per,key=lambda x:int(x[0]['row']['id'])):
            print(f"{p['row']['id']:>4} {p['kind']:10} {p['loader']:11} g{p['gpus']} {p['bytes']/1e9:6.1f}GB meas {p['meas']:8.2f} fit {a*100:+7.1f}% loso {b*100:+7.1f}%")
        print(full)
    return statistics.median(fe), statistics.median(le), sum(x<=0.2 for x in le), len(le)
if __name__=="__main__":
    args = [a for a in sys.argv[1:] if a not in ("-v", "--burst", BURST)]
    for k in args:
        if k not in FORM: raise SystemExit(f"unknown form {k!r}: one of {', '.join(FORM)}")
        FORM[k]=True
    print(FORM, run("-v" in sys.argv))
