#!/usr/bin/env python3
"""Writes an HPCC/ns-3 flow file of a WebSearch-like load on the hosts of an HPCC topology file.

Every host starts flows to uniformly drawn other hosts at Poisson times for DURATION seconds
(500 us), sizes drawn from the web-search flow-size CDF (DCTCP's, as HPCC's traffic generator
ships it: 15% up to 10 kB, median about 80 kB, 3% over 10 MB, largest 30 MB; uniform between
its points), at a rate giving LOAD (30%) of each host's 100 Gb/s link on average; flows start
at 2 s, as the fixtures' do. The same distribution as bench/packet_bench.cc's websearch30, drawn
here by Python's generator (seed 1), so not the same flows.

    bench/websearch_flows.py TOPOLOGY_FILE > flows.txt
"""
import random
import sys

CDF = [(0, 0), (10_000, 0.15), (20_000, 0.2), (30_000, 0.3), (50_000, 0.4), (80_000, 0.53), (200_000, 0.6),
       (1_000_000, 0.7), (2_000_000, 0.8), (5_000_000, 0.9), (10_000_000, 0.97), (30_000_000, 1)]
LOAD, LINK_BPS, DURATION, START = 0.3, 100e9, 500e-6, 2.0


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    with open(sys.argv[1]) as f:
        nodes, switches = (int(x) for x in f.readline().split()[:2])
        switch_ids = {int(x) for x in f.readline().split()}
    hosts = [n for n in range(nodes) if n not in switch_ids]
    assert len(switch_ids) == switches, "topology: the switch line does not list every switch"
    mean = sum((CDF[i][1] - CDF[i - 1][1]) * (CDF[i][0] + CDF[i - 1][0]) / 2 for i in range(1, len(CDF)))
    gap = mean * 8 / (LOAD * LINK_BPS)
    rng = random.Random(1)
    flows = []
    for h in hosts:
        t = rng.expovariate(1 / gap)
        while t < DURATION:
            u = rng.random()
            i = next(i for i in range(1, len(CDF)) if CDF[i][1] >= u)
            f = (u - CDF[i - 1][1]) / (CDF[i][1] - CDF[i - 1][1])
            size = max(1, int(CDF[i - 1][0] + f * (CDF[i][0] - CDF[i - 1][0])))
            dst = rng.choice([d for d in hosts if d != h])
            flows.append((START + t, h, dst, size))
            t += rng.expovariate(1 / gap)
    flows.sort()
    print(len(flows))
    for start, src, dst, size in flows:
        print(f"{src} {dst} 3 100 {size} {start:.9f}")


if __name__ == "__main__":
    main()
