# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Sourced by build-kernel: the cache folder, logging and a private apt
# setup (our own sources and lists under the cache; the host's apt
# configuration and state are never touched).

MIRROR=http://deb.debian.org/debian
SECURITY=http://deb.debian.org/debian-security
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

cache=${UDMEM_CACHE:-$HOME/.cache/udmem}/debug
mkdir -p "$cache"

log() { echo "$(basename "$0"): $*" >&2; }

# Point APT_CONFIG at the private setup; refresh its lists at most once a
# day, or when the setup changed.
apt_env() {
	local apt=$cache/apt new
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/empty"
	exec 7>"$apt/lock"
	flock 7
	: >"$apt/empty/status"
	new=$(
		cat <<-EOF
			Dir::Etc::SourceList "$apt/sources.list";
			Dir::Etc::SourceParts "$apt/empty";
			Dir::Etc::PreferencesParts "$apt/empty";
			Dir::State::Lists "$apt/lists";
			Dir::Cache "$apt/cache";
			Dir::State::status "$apt/empty/status";
			APT::Architectures { "amd64"; "arm64"; };
			Acquire::Languages "none";
			Acquire::Retries "3";
			APT::Sandbox::User "root";
			// deb [signed-by=$KEYRING] $MIRROR bookworm main
			// deb [signed-by=$KEYRING] $SECURITY bookworm-security main
		EOF
	)
	if [ "$new" != "$(cat "$apt/apt.conf" 2>/dev/null)" ]; then
		echo "$new" >"$apt/apt.conf"
		sed -n 's|^// ||p' "$apt/apt.conf" >"$apt/sources.list"
		rm -f "$apt/updated"
	fi
	export APT_CONFIG=$apt/apt.conf LC_ALL=C
	if [ -z "$(find "$apt/updated" -mmin -1440 2>/dev/null)" ]; then
		log "apt-get update (private lists in $apt)"
		apt-get -qq update >&2
		touch "$apt/updated"
	fi
	exec 7>&-
}
