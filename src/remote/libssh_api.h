// libssh, loaded on first use (src/util/dynlib.h says why). The adapters include
// "remote/libssh_calls.h" instead of <libssh/libssh.h>; this header holds the table of entry
// points. Every libssh function burst calls must be listed in BURST_LIBSSH_FUNCTIONS: a link
// error "undefined reference to `ssh_...`" means one is missing here.
#pragma once

#include <libssh/libssh.h>
#include <libssh/sftp.h>

#include "burst/result.h"

#define BURST_LIBSSH_FUNCTIONS(X)     \
  X(sftp_async_read)                  \
  X(sftp_async_read_begin)            \
  X(sftp_attributes_free)             \
  X(sftp_chmod)                       \
  X(sftp_close)                       \
  X(sftp_closedir)                    \
  X(sftp_dir_eof)                     \
  X(sftp_extension_supported)         \
  X(sftp_free)                        \
  X(sftp_fstat)                       \
  X(sftp_fsync)                       \
  X(sftp_get_error)                   \
  X(sftp_init)                        \
  X(sftp_lstat)                       \
  X(sftp_mkdir)                       \
  X(sftp_new)                         \
  X(sftp_open)                        \
  X(sftp_opendir)                     \
  X(sftp_read)                        \
  X(sftp_readdir)                     \
  X(sftp_readlink)                    \
  X(sftp_rename)                      \
  X(sftp_rmdir)                       \
  X(sftp_seek64)                      \
  X(sftp_setstat)                     \
  X(sftp_stat)                        \
  X(sftp_symlink)                     \
  X(sftp_tell64)                      \
  X(sftp_unlink)                      \
  X(sftp_utimes)                      \
  X(sftp_write)                       \
  X(ssh_blocking_flush)               \
  X(ssh_channel_close)                \
  X(ssh_channel_free)                 \
  X(ssh_channel_get_exit_status)      \
  X(ssh_channel_is_closed)            \
  X(ssh_channel_is_eof)               \
  X(ssh_channel_is_open)              \
  X(ssh_channel_new)                  \
  X(ssh_channel_open_session)         \
  X(ssh_channel_poll)                 \
  X(ssh_channel_poll_timeout)         \
  X(ssh_channel_read)                 \
  X(ssh_channel_read_nonblocking)     \
  X(ssh_channel_read_timeout)         \
  X(ssh_channel_request_env)          \
  X(ssh_channel_request_exec)         \
  X(ssh_channel_request_sftp)         \
  X(ssh_channel_request_subsystem)    \
  X(ssh_channel_send_eof)             \
  X(ssh_channel_window_size)          \
  X(ssh_channel_write)                \
  X(ssh_clean_pubkey_hash)            \
  X(ssh_connect)                      \
  X(ssh_disconnect)                   \
  X(ssh_free)                         \
  X(ssh_get_error)                    \
  X(ssh_get_fd)                       \
  X(ssh_get_fingerprint_hash)         \
  X(ssh_get_publickey_hash)           \
  X(ssh_get_server_publickey)         \
  X(ssh_get_status)                   \
  X(ssh_is_connected)                 \
  X(ssh_key_free)                     \
  X(ssh_key_type)                     \
  X(ssh_key_type_to_char)             \
  X(ssh_new)                          \
  X(ssh_options_set)                  \
  X(ssh_pki_export_privkey_file)      \
  X(ssh_pki_export_privkey_to_pubkey) \
  X(ssh_pki_export_pubkey_base64)     \
  X(ssh_pki_generate)                 \
  X(ssh_pki_import_privkey_file)      \
  X(ssh_set_blocking)                 \
  X(ssh_string_free_char)             \
  X(ssh_userauth_publickey)

namespace burst::libssh_dl {

struct Api {
#define BURST_LIBSSH_DECLARE(fn) decltype(&::fn) fn = nullptr;
  BURST_LIBSSH_FUNCTIONS(BURST_LIBSSH_DECLARE)
#undef BURST_LIBSSH_DECLARE
};

// Loads libssh and resolves every entry point, once per process (thread-safe). Call it at each
// adapter entry (connect, key generation) before any libssh function; the error names the
// library and the loader's message.
Status load();

// The entry points; valid only after load() succeeded.
const Api& api();

}  // namespace burst::libssh_dl
