"""A PostgreSQL cluster for the archive's tests (and scripts/cluster_check
later): Debian's server binaries, initdb in a temporary directory, a Unix
socket there and no TCP port, trust for the local user, stopped and
removed after. As root the server runs as the `postgres` account Debian's
package makes (PostgreSQL refuses to run as root).

    c = start()           # None when it cannot be had: why_not() says why
    url = c.new_database()
    c.query(url, "SELECT 1")   # rows of text, as psql --csv reads them
    c.stop()"""
import csv
import glob
import io
import os
import pwd
import shutil
import subprocess
import tempfile

_why = None


def why_not():
    return _why or "no PostgreSQL cluster"


def _bindir():
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
    return next((d for d in reversed(dirs) if os.path.exists(os.path.join(d, "initdb"))), None)


class Cluster:
    def __init__(self, bindir, root, user):
        self.bindir, self.root, self.user = bindir, root, user
        self.sock = os.path.join(root, "sock")
        self.data = os.path.join(root, "data")
        self.count = 0

    def _as_owner(self, args, **kw):
        if os.geteuid() == 0:
            args = ["runuser", "-u", self.user, "--"] + args
        return subprocess.run(args, capture_output=True, text=True, timeout=120, **kw)

    def url_of(self, db):
        return f"postgresql:///{db}?host={self.sock}&user={self.user}"

    def new_database(self):
        self.count += 1
        name = f"archive{self.count}"
        r = self._as_owner([os.path.join(self.bindir, "createdb"), "-h", self.sock, name])
        if r.returncode:
            raise RuntimeError(f"createdb {name}: {r.stderr.strip()}")
        return self.url_of(name)

    def query(self, url, sql):
        r = subprocess.run(["psql", "-X", "-q", "--csv", "-t", "-v", "ON_ERROR_STOP=1",
                            "-d", url, "-c", sql], capture_output=True, text=True, timeout=120)
        if r.returncode:
            raise RuntimeError(f"psql {sql!r}: {r.stderr.strip()}")
        return [tuple(row) for row in csv.reader(io.StringIO(r.stdout))]

    def stop(self):
        self._as_owner([os.path.join(self.bindir, "pg_ctl"), "-D", self.data, "-m", "immediate",
                        "stop"])
        shutil.rmtree(self.root, ignore_errors=True)


def start(durable=False):
    """A running cluster, or None (why_not() says why). durable: the
    server syncs its commits, as a real one does (a bench's timing);
    tests run without."""
    global _why
    bindir = _bindir()
    if not bindir or not shutil.which("psql"):
        _why = "PostgreSQL's server is not installed (Debian's postgresql)"
        return None
    user = pwd.getpwuid(os.geteuid()).pw_name
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            _why = "running as root and there is no postgres account to run the server as"
            return None
        user = "postgres"
    root = tempfile.mkdtemp(prefix="storscope-pg-")
    os.chmod(root, 0o755)
    c = Cluster(bindir, root, user)
    os.mkdir(c.sock)
    if os.geteuid() == 0:
        uid = pwd.getpwnam(user).pw_uid
        os.chown(root, uid, -1)
        os.chown(c.sock, uid, -1)
    steps = ([os.path.join(bindir, "initdb"), "-D", c.data, "-A", "trust", "-U", user,
              "--no-sync", "-E", "UTF8"],
             [os.path.join(bindir, "pg_ctl"), "-D", c.data, "-w", "-l",
              os.path.join(root, "log"), "-o",
              f"-k {c.sock} -c listen_addresses=" + ("" if durable else " -c fsync=off"),
              "start"])
    for step in steps:
        r = c._as_owner(step)
        if r.returncode:
            _why = f"{os.path.basename(step[0])} failed: {(r.stderr or r.stdout).strip()[-300:]}"
            shutil.rmtree(root, ignore_errors=True)
            return None
    return c
