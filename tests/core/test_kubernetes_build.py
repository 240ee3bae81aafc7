"""The offline Kubernetes build's go.mod rewrite (no cluster needed): the staging `replace` lines go,
the staged modules require their published v0.34.2, every other v0.0.0 pseudo-version stays."""

from __future__ import annotations

from helpers.engines import kubernetes_build

GO_MOD = """module k8s.io/kubernetes

require (
\tk8s.io/api v0.0.0
\tk8s.io/utils v0.0.0-20250604170112-4c0f3b243397
\tgithub.com/armon/circbuf v0.0.0-20190214190532-5111143e8da2
)

replace (
\tk8s.io/api => ./staging/src/k8s.io/api
)
"""


def test_the_staging_replaces_go_and_only_staged_modules_change_version():
    rewritten = kubernetes_build.rewrite_go_mod(GO_MOD)
    assert "replace" not in rewritten and "./staging" not in rewritten
    assert f"k8s.io/api {kubernetes_build.STAGING_VERSION}\n" in rewritten
    assert "k8s.io/utils v0.0.0-20250604170112-4c0f3b243397" in rewritten
    assert "github.com/armon/circbuf v0.0.0-20190214190532-5111143e8da2" in rewritten


def test_the_version_is_stamped_and_the_binaries_stripped():
    flags = kubernetes_build.ldflags().split()
    assert "-s" in flags and "-w" in flags
    assert f"k8s.io/component-base/version.gitVersion={kubernetes_build.VERSION}" in flags
    assert f"k8s.io/client-go/pkg/version.gitVersion={kubernetes_build.VERSION}" in flags
