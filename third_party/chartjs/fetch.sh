#!/bin/sh
# Re-fetches the vendored charting library from npm at the pinned versions and checks it:
# the tarballs against npm's sha512 integrity, the extracted files against SHA256SUMS.
# `./fetch.sh` checks and refreshes the files here; `./fetch.sh --check` only compares.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# package@version  npm integrity (sha512 of the tarball)  file in the package  name here
pins='chart.js@4.6.1 sha512-hJyniucsFmq//EvXYvJ6c6mahPoI3kaxdjVH8awTaJ/fDNWeSqqqArixMJWkWNN6fcYvPU3HneSANFNYtRi61g== dist/chart.umd.min.js chart.umd.min.js
chart.js@4.6.1 - LICENSE.md LICENSE-chart.js.md
chartjs-chart-matrix@3.1.0 sha512-pdo8DnhFXOisjbLDgfkzZH1w0xmjGqiaAMgkQSHCEMzxQENsXTgkXImIyweDiO7SqlE5PuzjhklyBCiorQhRmw== dist/chartjs-chart-matrix.min.js chartjs-chart-matrix.min.js
chartjs-chart-matrix@3.1.0 - LICENSE LICENSE-chartjs-chart-matrix'

echo "$pins" | while read -r pkg integrity src dst; do
  dir="$tmp/$pkg"
  if [ ! -d "$dir" ]; then
    mkdir -p "$dir"
    (cd "$dir" && npm pack --silent "$pkg" >/dev/null 2>&1) || { echo "npm pack $pkg failed" >&2; exit 1; }
    tarball=$(ls "$dir"/*.tgz)
    got="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
    if [ "$got" != "$integrity" ]; then
      echo "$pkg: tarball integrity $got, expected $integrity" >&2
      exit 1
    fi
    tar xzf "$tarball" -C "$dir"
  fi
  cp "$dir/package/$src" "$tmp/$dst"
done

(cd "$tmp" && sha256sum -c "$here/SHA256SUMS" --quiet) || { echo "SHA256SUMS mismatch" >&2; exit 1; }
if [ "${1:-}" = "--check" ]; then
  (cd "$here" && sha256sum -c SHA256SUMS --quiet) && echo "vendored files match npm's"
else
  for f in $(awk '{print $2}' "$here/SHA256SUMS"); do cp "$tmp/$f" "$here/$f"; done
  echo "vendored files refreshed from npm and checked"
fi
