"""The files a single-node Kubernetes cluster of the course reads: addresses and ports (every listener on
127.0.0.1 but the kubelet, on the run's own bridge), the certificates (openssl, one CA per run), the
kubeconfigs, containerd's, the kubelet's and kube-proxy's configurations, the CNI network, and the Pod
and Service manifests. JSON everywhere (YAML's superset: every component reads it).

The ranges come from the benchmarking block 198.18.0.0/15, never routed off the machine."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from .kubernetes_build import PAUSE_IMAGE

STATE_ROOT = Path("/var/lib/curso-kubernetes")
NODE_NAME = "curso-nodo"
BRIDGE = "curso-k8s0"
NODE_IP = "198.18.0.1"
POD_CIDR = "198.18.0.0/24"
SERVICE_CIDR = "198.18.128.0/24"
SERVICE_IP = "198.18.128.1"  # the `kubernetes` Service: the first address of SERVICE_CIDR
LOCALHOST = "127.0.0.1"
ETCD_CLIENT_PORT = 23790
ETCD_PEER_PORT = 23800
API_PORT = 16443
CONTROLLER_MANAGER_PORT = 10257
SCHEDULER_PORT = 10259
KUBELET_PORT = 10250
KUBELET_HEALTHZ_PORT = 10248
PROXY_HEALTHZ_PORT = 10256
PROXY_METRICS_PORT = 10249
CGROUP_NAME = "curso-k8s"  # the kubelet's cgroupRoot: every Pod in one tree, one rmdir at teardown
CNI_BIN_DIRS = ("/usr/lib/cni", "/opt/cni/bin")
CONTAINERD_NAMESPACE = "k8s.io"
# Host settings the kubelet and kube-proxy change on start: saved before, restored at teardown.
SYSCTLS = (
    "vm/overcommit_memory",
    "vm/panic_on_oom",
    "kernel/panic",
    "kernel/panic_on_oops",
    "kernel/keys/root_maxkeys",
    "kernel/keys/root_maxbytes",
    "net/ipv4/conf/all/route_localnet",
    "net/netfilter/nf_conntrack_max",
    "net/netfilter/nf_conntrack_tcp_timeout_established",
    "net/netfilter/nf_conntrack_tcp_timeout_close_wait",
    "net/ipv4/ip_forward",
)


class Layout:
    """Where one cluster keeps its files: everything under one folder, removed at teardown."""

    def __init__(self, root: Path):
        self.root = root
        self.owner = root / "dueño.json"
        self.pki = root / "pki"
        self.logs = root / "registros"
        self.etcd_data = root / "etcd"
        containerd = root / "containerd"
        self.containerd_root = containerd / "root"
        self.containerd_state = containerd / "state"
        self.containerd_socket = containerd / "containerd.sock"
        self.containerd_config = containerd / "config.toml"
        self.runc_root = root / "runc"
        self.cni_conf_dir = root / "cni" / "net.d"
        self.cni_ipam_dir = root / "cni" / "ipam"
        self.kubelet_dir = root / "kubelet"
        self.kubelet_config = root / "kubelet.json"
        self.proxy_config = root / "kube-proxy.json"
        self.admin_kubeconfig = root / "admin.kubeconfig"

    def cert(self, name: str) -> Path:
        return self.pki / f"{name}.crt"

    def key(self, name: str) -> Path:
        return self.pki / f"{name}.key"


def _openssl(*args: str) -> None:
    result = subprocess.run(["openssl", *args], capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        raise RuntimeError(f"openssl {args[0]} falló: {result.stderr.strip()[-300:]}")


def make_certificates(layout: Layout) -> None:
    """One CA for this run; the API server's serving certificate; one client certificate for every
    component (system:masters: a one-node course cluster, not a multi-tenant one); the service
    account signing key."""
    pki = layout.pki
    pki.mkdir(parents=True, exist_ok=True)
    ca_crt, ca_key = layout.cert("ca"), layout.key("ca")
    _openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", str(ca_key))
    _openssl(
        "req", "-x509", "-new", "-key", str(ca_key), "-subj", "/CN=curso-kubernetes-ca",
        "-days", "2", "-out", str(ca_crt),
    )  # fmt: skip
    ext = pki / "ext.cnf"
    for name, subject, extension in (
        (
            "apiserver",
            "/CN=kube-apiserver",
            f"subjectAltName=IP:{LOCALHOST},IP:{NODE_IP},IP:{SERVICE_IP},DNS:kubernetes,"
            "DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:localhost\n"
            "extendedKeyUsage=serverAuth\n",
        ),
        ("admin", "/O=system:masters/CN=curso-admin", "extendedKeyUsage=clientAuth\n"),
    ):
        ext.write_text(extension)
        key, csr = layout.key(name), pki / f"{name}.csr"
        _openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", str(key))
        _openssl("req", "-new", "-key", str(key), "-subj", subject, "-out", str(csr))
        _openssl(
            "x509", "-req", "-in", str(csr), "-CA", str(ca_crt), "-CAkey", str(ca_key),
            "-CAcreateserial", "-days", "2", "-extfile", str(ext), "-out", str(layout.cert(name)),
        )  # fmt: skip
    _openssl("genrsa", "-out", str(layout.key("sa")), "2048")
    _openssl("rsa", "-in", str(layout.key("sa")), "-pubout", "-out", str(pki / "sa.pub"))


def kubeconfig(layout: Layout) -> str:
    """The one kubeconfig every component and kubectl use (the admin client certificate)."""
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": "curso",
                    "cluster": {
                        "server": f"https://{LOCALHOST}:{API_PORT}",
                        "certificate-authority": str(layout.cert("ca")),
                    },
                }
            ],
            "users": [
                {
                    "name": "curso-admin",
                    "user": {
                        "client-certificate": str(layout.cert("admin")),
                        "client-key": str(layout.key("admin")),
                    },
                }
            ],
            "contexts": [{"name": "curso", "context": {"cluster": "curso", "user": "curso-admin"}}],
            "current-context": "curso",
        },
        indent=1,
    )


def containerd_config(layout: Layout, cni_bin_dir: str) -> str:
    """A second containerd of its own (root, state, socket, opt, runc root): never Docker's. Root has no
    CAP_SYS_RESOURCE on these machines, hence restrict_oom_score_adj; the sandbox is the local pause."""
    cri = 'plugins."io.containerd.grpc.v1.cri"'
    return f"""version = 2
root = "{layout.containerd_root}"
state = "{layout.containerd_state}"
oom_score = 0

[grpc]
  address = "{layout.containerd_socket}"

[ttrpc]
  address = ""

[debug]
  address = ""

[metrics]
  address = ""

[plugins."io.containerd.internal.v1.opt"]
  path = "{layout.root / "containerd" / "opt"}"

[{cri}]
  sandbox_image = "{PAUSE_IMAGE}"
  restrict_oom_score_adj = true
  enable_selinux = false
  disable_apparmor = true
  max_concurrent_downloads = 1

[{cri}.containerd]
  snapshotter = "overlayfs"
  default_runtime_name = "runc"

[{cri}.containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"

[{cri}.containerd.runtimes.runc.options]
  SystemdCgroup = false
  Root = "{layout.runc_root}"

[{cri}.cni]
  bin_dir = "{cni_bin_dir}"
  conf_dir = "{layout.cni_conf_dir}"
  max_conf_num = 1
"""


def cni_network(layout: Layout) -> str:
    """The Pods' network: the run's bridge (already up with NODE_IP), host-local addresses from
    POD_CIDR, no masquerade (nothing leaves the machine)."""
    return json.dumps(
        {
            "cniVersion": "0.4.0",
            "name": "curso-k8s",
            "plugins": [
                {
                    "type": "bridge",
                    "bridge": BRIDGE,
                    "isGateway": True,
                    "ipMasq": False,
                    "hairpinMode": True,
                    "ipam": {
                        "type": "host-local",
                        "dataDir": str(layout.cni_ipam_dir),
                        "ranges": [[{"subnet": POD_CIDR, "rangeStart": "198.18.0.10", "gateway": NODE_IP}]],
                        "routes": [{"dst": "0.0.0.0/0"}],
                    },
                }
            ],
        },
        indent=1,
    )


def kubelet_config(layout: Layout) -> str:
    """The kubelet on the bridge address (it cannot be loopback), cgroup v1 accepted, cgroupfs under
    its own root, small-machine limits, image garbage collection off (nothing can be pulled back)."""
    return json.dumps(
        {
            "apiVersion": "kubelet.config.k8s.io/v1beta1",
            "kind": "KubeletConfiguration",
            "address": NODE_IP,
            "port": KUBELET_PORT,
            "readOnlyPort": 0,
            "healthzBindAddress": LOCALHOST,
            "healthzPort": KUBELET_HEALTHZ_PORT,
            "authentication": {
                "anonymous": {"enabled": False},
                "webhook": {"enabled": False},
                "x509": {"clientCAFile": str(layout.cert("ca"))},
            },
            "authorization": {"mode": "AlwaysAllow"},
            "cgroupDriver": "cgroupfs",
            "cgroupRoot": f"/{CGROUP_NAME}",
            "failCgroupV1": False,
            "failSwapOn": False,
            "maxPods": 20,
            "podCIDR": POD_CIDR,
            "containerRuntimeEndpoint": f"unix://{layout.containerd_socket}",
            "imageServiceEndpoint": f"unix://{layout.containerd_socket}",
            "evictionHard": {
                "memory.available": "20Mi",
                "nodefs.available": "1%",
                "imagefs.available": "1%",
                "nodefs.inodesFree": "1%",
            },
            "imageGCHighThresholdPercent": 100,
            "imageGCLowThresholdPercent": 99,
            "resolvConf": "",
            "podLogsDir": str(layout.root / "registros-pods"),
            "registerNode": True,
            "serializeImagePulls": False,
            "shutdownGracePeriod": "0s",
            "nodeStatusUpdateFrequency": "2s",
            "syncFrequency": "10s",
            "fileCheckFrequency": "10s",
        },
        indent=1,
    )


def proxy_config(layout: Layout) -> str:
    """kube-proxy in iptables mode: NodePorts answer on 127.0.0.1 only; conntrack limits left alone."""
    return json.dumps(
        {
            "apiVersion": "kubeproxy.config.k8s.io/v1alpha1",
            "kind": "KubeProxyConfiguration",
            "clientConnection": {"kubeconfig": str(layout.admin_kubeconfig)},
            "mode": "iptables",
            "bindAddress": LOCALHOST,
            "clusterCIDR": POD_CIDR,
            "hostnameOverride": NODE_NAME,
            "healthzBindAddress": f"{LOCALHOST}:{PROXY_HEALTHZ_PORT}",
            "metricsBindAddress": f"{LOCALHOST}:{PROXY_METRICS_PORT}",
            "nodePortAddresses": [f"{LOCALHOST}/32"],
            "iptables": {"localhostNodePorts": True, "syncPeriod": "30s", "minSyncPeriod": "0s"},
            "conntrack": {
                "maxPerCore": 0,
                "min": 0,
                "tcpEstablishedTimeout": "0s",
                "tcpCloseWaitTimeout": "0s",
            },
        },
        indent=1,
    )


def etcd_command(etcd: Path, layout: Layout) -> list[str]:
    client = f"http://{LOCALHOST}:{ETCD_CLIENT_PORT}"
    peer = f"http://{LOCALHOST}:{ETCD_PEER_PORT}"
    return [
        str(etcd),
        "--name=curso",
        f"--data-dir={layout.etcd_data}",
        f"--listen-client-urls={client}",
        f"--advertise-client-urls={client}",
        f"--listen-peer-urls={peer}",
        f"--initial-advertise-peer-urls={peer}",
        f"--initial-cluster=curso={peer}",
        "--listen-metrics-urls=",
        "--quota-backend-bytes=268435456",
    ]


def _secure_listener(binary: Path, port: int) -> list[str]:
    return [str(binary), f"--bind-address={LOCALHOST}", f"--secure-port={port}"]


def apiserver_command(binary: Path, layout: Layout) -> list[str]:
    return _secure_listener(binary, API_PORT) + [
        f"--advertise-address={NODE_IP}",
        f"--etcd-servers=http://{LOCALHOST}:{ETCD_CLIENT_PORT}",
        f"--service-cluster-ip-range={SERVICE_CIDR}",
        f"--tls-cert-file={layout.cert('apiserver')}",
        f"--tls-private-key-file={layout.key('apiserver')}",
        f"--client-ca-file={layout.cert('ca')}",
        f"--kubelet-client-certificate={layout.cert('admin')}",
        f"--kubelet-client-key={layout.key('admin')}",
        "--kubelet-preferred-address-types=InternalIP",
        f"--service-account-key-file={layout.pki / 'sa.pub'}",
        f"--service-account-signing-key-file={layout.key('sa')}",
        "--service-account-issuer=https://kubernetes.default.svc",
        "--authorization-mode=RBAC",
        "--anonymous-auth=false",
        "--allow-privileged=false",
        "--enable-priority-and-fairness=false",
        "--profiling=false",
        "--endpoint-reconciler-type=none",
    ]


def _api_client(binary: Path, port: int, layout: Layout) -> list[str]:
    """What controller-manager and scheduler share: 127.0.0.1, the admin kubeconfig, no election."""
    config = layout.admin_kubeconfig
    return _secure_listener(binary, port) + [
        *(f"--{kind}kubeconfig={config}" for kind in ("", "authentication-", "authorization-")),
        "--leader-elect=false",
        "--profiling=false",
    ]


def controller_manager_command(binary: Path, layout: Layout) -> list[str]:
    return _api_client(binary, CONTROLLER_MANAGER_PORT, layout) + [
        f"--service-account-private-key-file={layout.key('sa')}",
        f"--root-ca-file={layout.cert('ca')}",
        f"--service-cluster-ip-range={SERVICE_CIDR}",
    ]


def scheduler_command(binary: Path, layout: Layout) -> list[str]:
    return _api_client(binary, SCHEDULER_PORT, layout)


def kubelet_command(binary: Path, layout: Layout) -> list[str]:
    return [
        str(binary),
        f"--config={layout.kubelet_config}",
        f"--kubeconfig={layout.admin_kubeconfig}",
        f"--root-dir={layout.kubelet_dir}",
        f"--cert-dir={layout.pki / 'kubelet'}",
        f"--hostname-override={NODE_NAME}",
        f"--node-ip={NODE_IP}",
    ]


def proxy_command(binary: Path, layout: Layout) -> list[str]:
    return [str(binary), f"--config={layout.proxy_config}"]


def pod_manifest(
    name: str,
    image: str,
    args: list[str],
    port: int,
    labels: dict[str, str],
    cpu: str | None = None,
    host_network: bool = False,
) -> dict:
    """A Pod running one local image (never pulled), with an HTTP readiness probe on its port; with
    `cpu` it asks for and is limited to that CPU (Guaranteed QoS: benchmark Pods need it)."""
    container: dict = {
        "name": name,
        "image": image,
        "imagePullPolicy": "Never",
        "args": args,
        "ports": [{"containerPort": port}],
        "readinessProbe": {
            "httpGet": {"path": "/", "port": port},
            "periodSeconds": 1,
            "initialDelaySeconds": 0,
        },
        "securityContext": {"allowPrivilegeEscalation": False},
    }
    if cpu:
        container["resources"] = {
            "requests": {"cpu": cpu, "memory": "64Mi"},
            "limits": {"cpu": cpu, "memory": "64Mi"},
        }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": labels},
        "spec": {
            "containers": [container],
            "hostNetwork": host_network,
            "automountServiceAccountToken": False,
            "enableServiceLinks": False,
            "terminationGracePeriodSeconds": 0,
        },
    }


def nodeport_manifest(name: str, selector: dict[str, str], port: int) -> dict:
    """A NodePort Service in front of the Pods selected (answering on 127.0.0.1 only: kube-proxy's
    nodePortAddresses)."""
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name},
        "spec": {"type": "NodePort", "selector": selector, "ports": [{"port": port, "targetPort": port}]},
    }
