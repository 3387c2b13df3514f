#!/usr/bin/env python3
"""Static SASS without a disassembler: this machine has ptxas (CUDA 13.0) but no cuobjdump/nvdisasm, the GPU
machine has both. The opcode of an sm_90 instruction sits in the low 12 bits of its first 64-bit word; the map
from those bits to mnemonics is learned from any `cuobjdump -sass` listing (which prints each instruction's
encoding) and kept in sm90-opcodes.json beside this script. Then a cubin built here by ptxas can be counted:
HMMA, LDSM, branches, ALU-pipe ops per loop, before spending device time (run 109 used it to see that a
change had left a loop rolled: fewer instructions in total, but 22 HMMA instead of 34). Opcodes not in the map
print as ?xyz; learn them from a listing that has them.

usage: sasstool.py learn LISTING[.gz] ...     add a cuobjdump -sass listing's opcodes to the map
       sasstool.py hist CUBIN [START END]     opcode histogram (instruction index range optional)
       sasstool.py list CUBIN                 one mnemonic per line with its index
"""
import collections
import gzip
import json
import os
import re
import struct
import sys
MAP = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'sm90-opcodes.json')
def op12(lo): return lo & 0xfff
def learn(files):
    m={}
    try: m=json.load(open(MAP))
    except Exception: pass
    pat=re.compile(r'/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)[^;]*;\s*/\*\s*(0x[0-9a-f]{16})\s*\*/')
    for f in files:
        op=gzip.open if f.endswith('.gz') else open
        for line in op(f,'rt'):
            mm=pat.search(line)
            if mm:
                lo=int(mm.group(4),16); mn=mm.group(3).split('.')[0]
                m.setdefault(str(op12(lo)),{}); m[str(op12(lo))][mn]=m[str(op12(lo))].get(mn,0)+1
    json.dump(m,open(MAP,'w')); print(len(m),'opcodes')
def text(cubin):
    d=open(cubin,'rb').read()
    shoff=struct.unpack_from('<Q',d,0x28)[0]; shentsize,shnum,shstrndx=struct.unpack_from('<HHH',d,0x3A)
    secs=[struct.unpack_from('<IIQQQQIIQQ',d,shoff+i*shentsize) for i in range(shnum)]
    so=secs[shstrndx][4]
    for s in secs:
        e=d.index(b'\0',so+s[0]); n=d[so+s[0]:e].decode()
        if n.startswith('.text'): return d[s[4]:s[4]+s[5]]
def decode(cubin):
    m=json.load(open(MAP)); t=text(cubin); out=[]
    for i in range(0,len(t),16):
        lo=struct.unpack_from('<Q',t,i)[0]; c=m.get(str(op12(lo)))
        out.append(max(c,key=c.get) if c else '?%03x'%op12(lo))
    return out
if __name__=='__main__':
    a=sys.argv
    if a[1]=='learn': learn(a[2:])
    elif a[1]=='hist':
        ins=decode(a[2]); s=int(a[3]) if len(a)>3 else 0; e=int(a[4]) if len(a)>4 else len(ins)
        c=collections.Counter(ins[s:e]); print('total',e-s); [print(f'{v:6d} {k}') for k,v in c.most_common()]
    elif a[1]=='list':
        for i,x in enumerate(decode(a[2])): print(i,x)
