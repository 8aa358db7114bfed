"""Normalize and analyse a sharded EPD corpus on a Dask cluster.

    python dask_cluster.py SHARD.epd... --out DIR [--nodes N] [--scheduler ADDRESS]

Without --scheduler it starts a LocalCluster of 2 worker processes on this
machine. On a real cluster, start `dask scheduler` on one machine and
`dask worker tcp://SCHEDULER:8786` on each of the others (each with
`pip install ./python[dask]` done), then pass --scheduler
tcp://SCHEDULER:8786: the same code runs there unchanged, and the shards
must be on a path every worker can read (a shared file system or object
storage that dask.bag.read_text understands, such as s3://).

Writes DIR/normalized.epd (byte for byte what `epd normalize SHARD...`
writes) and DIR/analyzed.epd (each record with pv, pm, ce and acd/acn from
the built-in engine limited to N nodes).

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import List, Optional


def main(argv: Optional[List[str]] = None) -> int:
    import dask.bag as db
    from dask.distributed import Client, LocalCluster

    import epdkit.dask as ed

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("shards", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--nodes", type=int, default=2000)
    ap.add_argument("--scheduler")
    ap.add_argument("--blocksize", default="256KiB", help="bytes per partition (lines are never split)")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)

    cluster = None
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        start = time.perf_counter()
        lines = db.read_text(args.shards, blocksize=args.blocksize)
        normalized = ed.map_bag(lines, "normalize")
        analyzed = ed.map_bag(normalized, "analyze", engine="builtin", nodes=args.nodes, counters=True)
        # Partitions come back in order; the concatenation is the file.
        with open(os.path.join(args.out, "normalized.epd"), "w") as f:
            f.writelines(normalized.compute())
        with open(os.path.join(args.out, "analyzed.epd"), "w") as f:
            f.writelines(analyzed.compute())
        print(
            f"{lines.npartitions} partitions on {len(client.scheduler_info()['workers'])} workers, "
            f"{time.perf_counter() - start:.1f} s",
            file=sys.stderr,
        )
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
