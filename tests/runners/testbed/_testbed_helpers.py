"""Helpers shared by the testbed tests (a unique module name, imported from next to the tests)."""
from __future__ import annotations

import os
import pathlib

HERE = pathlib.Path(__file__).parent


def unique_prefix(tag: str) -> str:
    return f"{tag}{os.getpid() % 100000}"[:10]


def unique_subnet(slot: int) -> str:
    """A /24 inside 198.19.0.0/16 that differs per test process and per ``slot``."""
    return f"198.19.{(os.getpid() * 7 + slot) % 250}.0/24"


def ssh_client(plan: dict, address: str):
    """A paramiko client logged in with the generated key; host keys pinned by the generated known_hosts."""
    import paramiko

    client = paramiko.SSHClient()
    client.load_host_keys(os.path.join(plan["dir"], "known_hosts"))
    client.set_missing_host_key_policy(paramiko.RejectPolicy())
    client.connect(address, port=22, username="root", key_filename=os.path.join(plan["dir"], "id_ed25519"),
                   look_for_keys=False, allow_agent=False, timeout=10, banner_timeout=10, auth_timeout=10)
    return client
