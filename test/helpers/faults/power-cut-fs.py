#!/usr/bin/python3
"""A filesystem in memory that loses, on a "power cut", everything not made durable (Debian's python3-fusepy).

Usage: power-cut-fs.py MOUNTPOINT. Commands on standard input, one a line, each answered on standard output:
  sync  everything becomes durable, as the kernel's writeback of a node running for a while would make it
        ("synced");
  cut   the power goes: every later operation fails with EIO and the state falls back to what was durable
        ("cut"). Unmount then (umount MOUNTPOINT): the same durable state is mounted again ("mounted").
A line "mounted" is printed each time the filesystem is ready.

What survives a cut (the model, stricter than ext4 in practice):
  - a file's bytes and size as of its last fsync or fdatasync (through any of its descriptors); writes after
    it are lost, none torn in part;
  - a directory's entries (create, rename, unlink, mkdir, rmdir, link) as of its last fsync; so a file created
    and fsynced but whose folder was not is gone, and a rename is kept only where the folder it changed was
    fsynced (a renamed file whose new folder was fsynced but old one was not has both names);
  - modes, owners and times as they were set (not modelled).
"""
import errno
import os
import stat
import subprocess
import sys
import threading
import time

from fusepy import FUSE, FuseOSError, Operations


class Node:
    def __init__(self, mode):
        self.mode = mode
        now = time.time()
        self.atime = self.mtime = self.ctime = now
        self.uid = self.gid = 0
        if stat.S_ISDIR(mode):
            self.entries = {}
            self.durable_entries = {}
        else:
            self.data = bytearray()
            self.durable = bytearray()
            self.dirty = []
            self.shrunk_to = None

    def is_dir(self):
        return stat.S_ISDIR(self.mode)

    def make_durable(self):
        """fsync: the file's bytes and size, or the folder's entries, survive a cut from now on."""
        if self.is_dir():
            self.durable_entries = dict(self.entries)
            return
        size = len(self.data)
        if self.shrunk_to is not None:
            del self.durable[self.shrunk_to:]
        if len(self.durable) > size:
            del self.durable[size:]
        else:
            self.durable.extend(bytes(size - len(self.durable)))
        for start, end in self.dirty:
            end = min(end, size)
            if start < end:
                self.durable[start:end] = self.data[start:end]
        self.dirty = []
        self.shrunk_to = None

    def revert(self):
        if self.is_dir():
            self.entries = dict(self.durable_entries)
        else:
            self.data = bytearray(self.durable)
            self.dirty = []
            self.shrunk_to = None


def reachable(root, entries_of):
    seen, stack, out = set(), [root], []
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        out.append(node)
        if node.is_dir():
            stack.extend(entries_of(node).values())
    return out


class PowerCutFs(Operations):
    def __init__(self):
        self.mutex = threading.RLock()
        self.root = Node(stat.S_IFDIR | 0o755)
        self.handles = {}
        self.next_handle = 1
        self.frozen = False

    # Control, from standard input.
    def sync_all(self):
        with self.mutex:
            for node in reachable(self.root, lambda n: n.entries):
                node.make_durable()

    def cut(self):
        with self.mutex:
            self.frozen = True
            for node in reachable(self.root, lambda n: n.durable_entries):
                node.revert()
            self.handles.clear()

    def thaw(self):
        with self.mutex:
            self.frozen = False

    # Helpers.
    def __call__(self, op, *args):
        with self.mutex:
            if self.frozen:
                raise FuseOSError(errno.EIO)
            return super().__call__(op, *args)

    def lookup(self, path):
        node = self.root
        for part in path.split("/"):
            if not part:
                continue
            if not node.is_dir() or part not in node.entries:
                raise FuseOSError(errno.ENOENT)
            node = node.entries[part]
        return node

    def parent_and_name(self, path):
        head, name = os.path.split(path.rstrip("/"))
        parent = self.lookup(head)
        if not parent.is_dir():
            raise FuseOSError(errno.ENOTDIR)
        return parent, name

    def node_of(self, path, fh):
        if fh is not None and fh in self.handles:
            return self.handles[fh]
        if path is None:
            raise FuseOSError(errno.EBADF)
        return self.lookup(path)

    def handle(self, node):
        fh = self.next_handle
        self.next_handle += 1
        self.handles[fh] = node
        return fh

    # Operations.
    def init(self, path):
        print("mounted", flush=True)

    def getattr(self, path, fh=None):
        node = self.node_of(path, fh)
        if node.is_dir():
            size = 4096
            nlink = 2 + sum(1 for child in node.entries.values() if child.is_dir())
        else:
            size = len(node.data)
            nlink = 1
        return {
            "st_mode": node.mode,
            "st_nlink": nlink,
            "st_size": size,
            "st_uid": node.uid,
            "st_gid": node.gid,
            "st_atime": node.atime,
            "st_mtime": node.mtime,
            "st_ctime": node.ctime,
            "st_blocks": (size + 511) // 512,
        }

    def access(self, path, amode):
        self.lookup(path)
        return 0

    def statfs(self, path):
        blocks = 1 << 24
        return {
            "f_bsize": 4096,
            "f_frsize": 4096,
            "f_blocks": blocks,
            "f_bfree": blocks,
            "f_bavail": blocks,
            "f_files": 1 << 20,
            "f_ffree": 1 << 20,
            "f_favail": 1 << 20,
            "f_namemax": 255,
        }

    def readdir(self, path, fh):
        return [".", ".."] + list(self.lookup(path).entries)

    def opendir(self, path):
        return self.handle(self.lookup(path))

    def releasedir(self, path, fh):
        self.handles.pop(fh, None)
        return 0

    def fsyncdir(self, path, datasync, fh):
        self.node_of(path, fh).make_durable()
        return 0

    def mkdir(self, path, mode):
        parent, name = self.parent_and_name(path)
        if name in parent.entries:
            raise FuseOSError(errno.EEXIST)
        parent.entries[name] = Node(stat.S_IFDIR | (mode & 0o7777))
        parent.mtime = time.time()
        return 0

    def rmdir(self, path):
        parent, name = self.parent_and_name(path)
        node = parent.entries.get(name)
        if node is None:
            raise FuseOSError(errno.ENOENT)
        if not node.is_dir():
            raise FuseOSError(errno.ENOTDIR)
        if node.entries:
            raise FuseOSError(errno.ENOTEMPTY)
        del parent.entries[name]
        return 0

    def mknod(self, path, mode, dev):
        parent, name = self.parent_and_name(path)
        if name in parent.entries:
            raise FuseOSError(errno.EEXIST)
        parent.entries[name] = Node(mode)
        return 0

    def create(self, path, mode, fi=None):
        parent, name = self.parent_and_name(path)
        node = parent.entries.get(name)
        if node is None:
            node = Node(stat.S_IFREG | (mode & 0o7777))
            parent.entries[name] = node
            parent.mtime = time.time()
        return self.handle(node)

    def open(self, path, flags):
        node = self.lookup(path)
        if flags & os.O_TRUNC:
            self.resize(node, 0)
        return self.handle(node)

    def release(self, path, fh):
        self.handles.pop(fh, None)
        return 0

    def flush(self, path, fh):
        return 0

    def read(self, path, size, offset, fh):
        node = self.node_of(path, fh)
        return bytes(node.data[offset : offset + size])

    def write(self, path, data, offset, fh):
        node = self.node_of(path, fh)
        end = offset + len(data)
        if end > len(node.data):
            node.data.extend(bytes(end - len(node.data)))
        node.data[offset:end] = data
        node.dirty.append((offset, end))
        node.mtime = time.time()
        return len(data)

    def resize(self, node, length):
        if node.is_dir():
            raise FuseOSError(errno.EISDIR)
        if length < len(node.data):
            del node.data[length:]
            node.shrunk_to = length if node.shrunk_to is None else min(node.shrunk_to, length)
        else:
            node.data.extend(bytes(length - len(node.data)))
        node.mtime = time.time()

    def truncate(self, path, length, fh=None):
        self.resize(self.node_of(path, fh), length)
        return 0

    def fsync(self, path, datasync, fh):
        self.node_of(path, fh).make_durable()
        return 0

    def unlink(self, path):
        parent, name = self.parent_and_name(path)
        node = parent.entries.get(name)
        if node is None:
            raise FuseOSError(errno.ENOENT)
        if node.is_dir():
            raise FuseOSError(errno.EISDIR)
        del parent.entries[name]
        parent.mtime = time.time()
        return 0

    def rename(self, old, new):
        old_parent, old_name = self.parent_and_name(old)
        new_parent, new_name = self.parent_and_name(new)
        node = old_parent.entries.get(old_name)
        if node is None:
            raise FuseOSError(errno.ENOENT)
        target = new_parent.entries.get(new_name)
        if target is not None and target is not node:
            if target.is_dir() != node.is_dir():
                raise FuseOSError(errno.EISDIR if target.is_dir() else errno.ENOTDIR)
            if target.is_dir() and target.entries:
                raise FuseOSError(errno.ENOTEMPTY)
        del old_parent.entries[old_name]
        new_parent.entries[new_name] = node
        old_parent.mtime = new_parent.mtime = time.time()
        return 0

    def link(self, target, source):
        node = self.lookup(source)
        if node.is_dir():
            raise FuseOSError(errno.EPERM)
        parent, name = self.parent_and_name(target)
        if name in parent.entries:
            raise FuseOSError(errno.EEXIST)
        parent.entries[name] = node
        return 0

    def symlink(self, target, source):
        parent, name = self.parent_and_name(target)
        if name in parent.entries:
            raise FuseOSError(errno.EEXIST)
        node = Node(stat.S_IFLNK | 0o777)
        node.data = bytearray(source.encode())
        node.durable = bytearray(node.data)
        parent.entries[name] = node
        return 0

    def readlink(self, path):
        return self.lookup(path).data.decode()

    def chmod(self, path, mode):
        node = self.lookup(path)
        node.mode = (node.mode & ~0o7777) | (mode & 0o7777)
        return 0

    def chown(self, path, uid, gid):
        node = self.lookup(path)
        if uid != -1:
            node.uid = uid
        if gid != -1:
            node.gid = gid
        return 0

    def utimens(self, path, times=None):
        node = self.lookup(path)
        node.atime, node.mtime = times if times else (time.time(), time.time())
        return 0


def control(fs):
    for line in sys.stdin:
        command = line.strip()
        if command == "sync":
            fs.sync_all()
            print("synced", flush=True)
        elif command == "cut":
            fs.cut()
            print("cut", flush=True)
    # The test is gone: unmount, so that nothing is left mounted.
    subprocess.run(["umount", "-l", sys.argv[1]], stderr=subprocess.DEVNULL, check=False)
    os._exit(0)


def main():
    mountpoint = sys.argv[1]
    fs = PowerCutFs()
    threading.Thread(target=control, args=(fs,), daemon=True).start()
    while True:
        FUSE(fs, mountpoint, foreground=True, nothreads=True, hard_remove=True)
        if not fs.frozen:
            return
        fs.thaw()


if __name__ == "__main__":
    main()
