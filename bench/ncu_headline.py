#!/usr/bin/env python3
"""Headline metrics of two Nsight Compute detail pages side by side.

Usage: ncu_headline.py A.txt B.txt LABEL_A LABEL_B
(the text of `ncu -i report --page details --print-details all` for each kernel)."""
import re
import sys

WANTED = ['Duration', 'SM Frequency', 'DRAM Frequency', 'Executed Instructions', 'Compute (SM) Throughput',
          'Memory Throughput', 'L1/TEX Hit Rate', 'L2 Hit Rate', 'DRAM Throughput', 'L1/TEX Cache Throughput',
          'L2 Cache Throughput', 'Executed Ipc Active', 'Issue Slots Busy', 'Registers Per Thread',
          'Shared Memory Configuration Size', 'Warp Cycles Per Issued Instruction', 'Block Limit Registers',
          'Achieved Occupancy', 'Grid Size', 'Cluster Size', 'Block Size', 'Mem Busy', 'Max Bandwidth',
          'Mem Pipes Busy', 'L2 Compression']


def read(path):
    vals = {}
    try:
        for line in open(path):
            m = re.match(r'\s{4}(\S.*?)\s{2,}(\S+)\s+(\S+)\s*$', line)
            if m and m.group(1) not in vals:
                vals[m.group(1)] = m.group(2) + ' ' + m.group(3)
    except OSError:
        pass
    return vals


def main():
    a, b = read(sys.argv[1]), read(sys.argv[2])
    print('%-36s %22s %22s' % ('metric', sys.argv[3], sys.argv[4]))
    for w in WANTED:
        print('%-36s %22s %22s' % (w, a.get(w, '-'), b.get(w, '-')))


if __name__ == '__main__':
    main()
