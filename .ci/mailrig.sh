#!/usr/bin/env bash
# The mail rig: real Postfix (SMTP) and Dovecot (IMAP) on 127.0.0.1 only,
# for the end-to-end mail test (tests/mail_real_servers.rs).
#
#   .ci/mailrig.sh install      apt-get the servers (preseeded: Local only)
#   .ci/mailrig.sh start DIR    configure under DIR (new, short path), start
#   .ci/mailrig.sh stop DIR     stop both daemons by the PIDs in their pid files
#   .ci/mailrig.sh test         install, start in a temp dir, run the e2e
#                               test, stop (always), all under hard timeouts
#
# Dead addresses: one of rig.test that is no user (tsar@rig.test) is
# refused at RCPT (550 5.1.1 User unknown), as is any other domain (the
# error transport); $GONE_ADDR is accepted, then its delivery fails for
# good (the `gone` pipe exits EX_NOUSER), so Postfix bounces it: a
# delivery status notification (RFC 3464) to the envelope sender.
#
# Pipe delivery (docs/mail.md): mail to campaign@rig.test goes through
# Postfix's pipe(8) to DIR/pipe/empereur ingest --game DIR/pipe/game -,
# run as nobody, as the docs set it up (EMPEREUR_LOCK_WAIT is 2 s so the
# locked-game case is quick). The test puts the binary and the game there
# before it mails that address.
#
# Nothing can leave the machine: Postfix listens on loopback ports only,
# delivers only to the virtual domain rig.test, and every other
# destination is an error transport. Needs root (Debian/Ubuntu).
set -euo pipefail

PORT_BASE=${EMPEREUR_RIG_PORT_BASE:-12500}
SMTP_PORT=$((PORT_BASE + 25))     # plain SMTP, no auth (players' clients)
SUB_PORT=$((PORT_BASE + 87))      # submission: STARTTLS + AUTH
SMTPS_PORT=$((PORT_BASE + 65))    # implicit TLS + AUTH
IMAP_PORT=$((PORT_BASE + 43))
IMAPS_PORT=$((PORT_BASE + 93))
DOMAIN=rig.test
USERS="gm france austria russia"
PIPE_ADDR=campaign@$DOMAIN
GONE_ADDR=prussia@$DOMAIN
VUID=$(id -u nobody)
VGID=$(getent group nogroup | cut -d: -f3)

log() { echo "mailrig: $*" >&2; }

install() {
    if command -v postfix >/dev/null && command -v dovecot >/dev/null && command -v swaks >/dev/null; then
        log "servers already installed"
        return
    fi
    export DEBIAN_FRONTEND=noninteractive
    printf '%s\n' \
        "postfix postfix/main_mailer_type select Local only" \
        "postfix postfix/mailname string localhost" | debconf-set-selections
    timeout 300 apt-get update -qq
    timeout 300 apt-get install -y -qq --no-install-recommends \
        postfix dovecot-core dovecot-imapd swaks libnet-ssleay-perl openssl >/dev/null
    log "installed postfix, dovecot, swaks"
}

certs() {
    local t=$1/tls
    mkdir -p "$t"
    # rustls refuses a self-signed CA:TRUE certificate used as the server
    # certificate: make a tiny CA and a leaf with SAN localhost/127.0.0.1.
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=Empereur rig CA" \
        -keyout "$t/ca.key" -out "$t/ca.pem" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" \
        -keyout "$t/leaf.key" -out "$t/leaf.csr" 2>/dev/null
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' > "$t/ext"
    openssl x509 -req -in "$t/leaf.csr" -CA "$t/ca.pem" -CAkey "$t/ca.key" -CAcreateserial \
        -days 2 -extfile "$t/ext" -out "$t/leaf.pem" 2>/dev/null
    chmod 644 "$t"/*.pem "$t/leaf.key"
}

configure() {
    local d=$1
    mkdir -p "$d/postfix/queue" "$d/postfix/data" "$d/dovecot/run" "$d/dovecot/state" "$d/vmail"
    certs "$d"
    # Virtual users: Maildirs under vmail/rig.test/<user>/, password "<user>-pw".
    : > "$d/postfix/vmailbox"
    : > "$d/dovecot/users"
    for u in $USERS; do
        echo "$u@$DOMAIN $DOMAIN/$u/" >> "$d/postfix/vmailbox"
        echo "$u@$DOMAIN:{PLAIN}$u-pw::::::" >> "$d/dovecot/users"
        mkdir -p "$d/vmail/$DOMAIN/$u"/{new,cur,tmp}
    done
    # Listed so smtpd accepts it; transport_maps sends it to the pipe.
    echo "$PIPE_ADDR $DOMAIN/campaign/" >> "$d/postfix/vmailbox"
    echo "$PIPE_ADDR empereur:" > "$d/postfix/transport"
    echo "$GONE_ADDR $DOMAIN/gone/" >> "$d/postfix/vmailbox"
    echo "$GONE_ADDR gone:" >> "$d/postfix/transport"
    mkdir -p "$d/pipe"
    chmod 755 "$d/pipe"
    chown -R "$VUID:$VGID" "$d/vmail"
    chmod 755 "$d" "$d/vmail"
    cat > "$d/postfix/main.cf" <<CF
compatibility_level = 3.6
queue_directory = $d/postfix/queue
data_directory = $d/postfix/data
mail_owner = postfix
setgid_group = postdrop
inet_protocols = ipv4
inet_interfaces = 127.0.0.1
myhostname = localhost
mydomain = localdomain
myorigin = \$myhostname
mydestination =
mynetworks = 127.0.0.0/8
local_transport = error:local delivery is disabled
default_transport = error:nothing leaves the rig
relay_transport = error:nothing leaves the rig
virtual_mailbox_domains = $DOMAIN
virtual_mailbox_base = $d/vmail
virtual_mailbox_maps = texthash:$d/postfix/vmailbox
virtual_uid_maps = static:$VUID
virtual_gid_maps = static:$VGID
virtual_minimum_uid = 1
transport_maps = texthash:$d/postfix/transport
empereur_destination_recipient_limit = 1
smtpd_relay_restrictions = permit_mynetworks, permit_sasl_authenticated, reject_unauth_destination
smtpd_tls_cert_file = $d/tls/leaf.pem
smtpd_tls_key_file = $d/tls/leaf.key
smtpd_tls_security_level = may
smtpd_sasl_type = dovecot
smtpd_sasl_path = $d/dovecot/auth-postfix
maillog_file_prefixes = $d
maillog_file = $d/postfix/maillog
message_size_limit = 10240000
biff = no
CF
    cat > "$d/postfix/master.cf" <<CF
127.0.0.1:$SMTP_PORT inet n - n - - smtpd
127.0.0.1:$SUB_PORT inet n - n - - smtpd
  -o smtpd_tls_security_level=encrypt
  -o smtpd_sasl_auth_enable=yes
  -o smtpd_client_restrictions=permit_sasl_authenticated,reject
  -o smtpd_relay_restrictions=permit_sasl_authenticated,reject
127.0.0.1:$SMTPS_PORT inet n - n - - smtpd
  -o smtpd_tls_wrappermode=yes
  -o smtpd_sasl_auth_enable=yes
  -o smtpd_client_restrictions=permit_sasl_authenticated,reject
  -o smtpd_relay_restrictions=permit_sasl_authenticated,reject
pickup    unix  n - n 60 1 pickup
cleanup   unix  n - n - 0 cleanup
qmgr      unix  n - n 300 1 qmgr
tlsmgr    unix  - - n 1000? 1 tlsmgr
rewrite   unix  - - n - - trivial-rewrite
bounce    unix  - - n - 0 bounce
defer     unix  - - n - 0 bounce
trace     unix  - - n - 0 bounce
verify    unix  - - n - 1 verify
flush     unix  n - n 1000? 0 flush
proxymap  unix  - - n - - proxymap
showq     unix  n - n - - showq
error     unix  - - n - - error
retry     unix  - - n - - error
discard   unix  - - n - - discard
virtual   unix  - n n - - virtual
anvil     unix  - - n - 1 anvil
scache    unix  - - n - 1 scache
postlog   unix-dgram n - n - 1 postlogd
empereur  unix  -       n       n       -       1       pipe
  flags=Rq user=nobody argv=/usr/bin/env EMPEREUR_LOCK_WAIT=2 $d/pipe/empereur ingest --game $d/pipe/game -
gone      unix  -       n       n       -       -       pipe
  flags=q user=nobody argv=/bin/sh -c { exit 67 }
CF
    cat > "$d/dovecot/dovecot.conf" <<CF
base_dir = $d/dovecot/run
state_dir = $d/dovecot/state
log_path = $d/dovecot/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = yes
ssl_cert = <$d/tls/leaf.pem
ssl_key = <$d/tls/leaf.key
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:$d/vmail/%d/%n
first_valid_uid = 1
default_internal_user = dovecot
default_login_user = dovenull
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u $d/dovecot/users
}
userdb {
  driver = static
  args = uid=$VUID gid=$VGID home=$d/vmail/%d/%n
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = $IMAP_PORT
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = $IMAPS_PORT
    ssl = yes
  }
}
service auth {
  unix_listener $d/dovecot/auth-postfix {
    mode = 0666
  }
}
CF
    cat > "$d/rig.env" <<CF
EMPEREUR_RIG_DIR=$d
EMPEREUR_RIG_DOMAIN=$DOMAIN
EMPEREUR_RIG_SMTP_PORT=$SMTP_PORT
EMPEREUR_RIG_SUB_PORT=$SUB_PORT
EMPEREUR_RIG_SMTPS_PORT=$SMTPS_PORT
EMPEREUR_RIG_IMAP_PORT=$IMAP_PORT
EMPEREUR_RIG_IMAPS_PORT=$IMAPS_PORT
EMPEREUR_RIG_CA=$d/tls/ca.pem
EMPEREUR_RIG_PIPE_ADDR=$PIPE_ADDR
EMPEREUR_RIG_PIPE_DIR=$d/pipe
EMPEREUR_RIG_GONE_ADDR=$GONE_ADDR
CF
}

wait_port() {
    local port=$1 i
    for i in $(seq 1 100); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
        sleep 0.1
    done
    log "port $port did not open"
    return 1
}

start() {
    local d=${1:?usage: mailrig.sh start DIR}
    mkdir -p "$d"
    d=$(cd "$d" && pwd)
    if [ ${#d} -gt 60 ]; then log "DIR too long for a unix socket path: $d"; exit 2; fi
    configure "$d"
    # Daemons detach; their stdio must not hold our pipes open.
    timeout 20 dovecot -c "$d/dovecot/dovecot.conf" </dev/null >/dev/null 2>&1 ||
        { log "dovecot failed:"; tail -5 "$d/dovecot/dovecot.log" >&2; exit 1; }
    chown postfix "$d/postfix/data"
    timeout 30 postfix -c "$d/postfix" start </dev/null >/dev/null 2>&1 ||
        { log "postfix failed:"; tail -5 "$d/postfix/maillog" >&2; exit 1; }
    for p in $SMTP_PORT $SUB_PORT $SMTPS_PORT $IMAP_PORT $IMAPS_PORT; do wait_port "$p"; done
    log "up in $d (smtp $SMTP_PORT, submission $SUB_PORT, smtps $SMTPS_PORT, imap $IMAP_PORT, imaps $IMAPS_PORT)"
}

stop_pid() {
    local file=$1 name=$2 pid i
    [ -f "$file" ] || { log "$name: no pid file"; return 0; }
    pid=$(tr -dc '0-9' < "$file")
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null || { log "$name: not running"; return 0; }
    for i in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || { log "$name stopped"; return 0; }
        sleep 0.1
    done
    log "$name did not stop in 10 s: KILL $pid"
    kill -KILL "$pid" 2>/dev/null || true
}

stop() {
    local d=${1:?usage: mailrig.sh stop DIR}
    stop_pid "$d/postfix/queue/pid/master.pid" postfix
    stop_pid "$d/dovecot/run/master.pid" dovecot
}

run_test() {
    install
    RIG_DIR=$(mktemp -d /tmp/erig.XXXXXX)
    trap 'stop "$RIG_DIR"; rm -rf "$RIG_DIR"' EXIT
    start "$RIG_DIR"
    local root
    root=$(cd "$(dirname "$0")/.." && pwd)
    (cd "$root" && EMPEREUR_MAIL_RIG="$RIG_DIR" timeout 600 cargo test --test mail_real_servers -- --ignored --nocapture --test-threads=1)
}

case "${1:-}" in
    install) install ;;
    start) start "${2:-}" ;;
    stop) stop "${2:-}" ;;
    test) run_test ;;
    *) echo "usage: $0 install | start DIR | stop DIR | test" >&2; exit 2 ;;
esac
