#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The instance's init on the machine of make shell and make demo
# (qemu/shell.sh).  It says which kernel it runs, on how many CPUs and
# how much memory; answers each message from the host with "instance
# got: TEXT"; and gives its console (hvc0, which the host reaches with
# "multikernel console") to a shell, "instance# ".  /sbin/poweroff, which
# its kernel runs when the host stops it gracefully, powers it off at once.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /sbin
printf '#!/bin/sh\nexec /bin/busybox poweroff -f\n' > /sbin/poweroff
chmod 755 /sbin/poweroff

echo "instance: $(uname -sr), $(nproc) CPU," \
	"$(sed -n 's/^MemTotal: *//p' /proc/meminfo) of memory"
while :; do
	msg=$(multikernel recv) || { sleep 1; continue; }
	multikernel send --peer 0 "instance got: ${msg#*: }"
done &
export PS1='instance# '
# A shell that exits gives way to a new one: init must not end
while :; do
	setsid cttyhack sh
done
