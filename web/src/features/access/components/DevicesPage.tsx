/**
 * Signed-in devices (issue #29): every live session with its browser, system, address, place,
 * when it signed in and was last seen; this device marked; sign out one device or every other.
 */
import { m, useLocale } from "../../../i18n/index.ts";
import { openConfirm } from "../../../lib/dialog.ts";
import { formatDateTime } from "../../../lib/format.ts";
import { toast } from "../../../lib/toast.ts";
import { EmptyState, ErrorState, SkeletonList } from "../../../components/States.tsx";
import { useRevokeSessions, useSessions, type SessionView } from "../api.ts";
import acct from "../../../components/account.module.css";
import s from "./access.module.css";

/** "Chrome · Windows", or what is known of it. */
export const deviceName = (v: { browser: string | null; device: string | null }) => [v.browser, v.device].filter(Boolean).join(" · ") || m.devices_unknown();

export default function DevicesPage() {
  useLocale();
  const list = useSessions();
  const revoke = useRevokeSessions();
  const others = (list.data?.list ?? []).filter((x) => !x.current);

  const signOut = (v: SessionView) =>
    openConfirm({
      title: m.devices_signout_title(),
      message: m.devices_signout_body({ device: deviceName(v) }),
      confirmText: m.devices_signout(),
      cancelText: m.cancel(),
      onConfirm: () => {
        void revoke({ id: v.id })
          .then(() => toast.success(m.devices_signed_out({ count: 1 })))
          .catch(() => undefined);
      },
    });
  const signOutAll = () =>
    openConfirm({
      title: m.devices_signout_all(),
      message: m.devices_signout_all_body({ count: others.length }),
      confirmText: m.devices_signout_all(),
      cancelText: m.cancel(),
      onConfirm: () => {
        void revoke({ all: true })
          .then((r) => toast.success(m.devices_signed_out({ count: r.revoked })))
          .catch(() => undefined);
      },
    });

  return (
    <div className={acct.acctPage} data-testid="devices-page">
      <p className={`${acct.notice} ${acct.noticeInfo}`}>{m.devices_intro()}</p>
      {list.error && !list.data ? (
        <ErrorState message={list.error.message} onRetry={list.reload} />
      ) : !list.data ? (
        <SkeletonList rows={3} />
      ) : list.data.list.length === 0 ? (
        <EmptyState />
      ) : (
        <ul className={acct.recordList}>
          {list.data.list.map((v) => (
            <li key={v.id} className={acct.recordCard} data-testid="device-row" data-current={v.current ? "yes" : "no"}>
              <div className={acct.recordHead}>
                <span className={acct.recordTitle}>
                  {deviceName(v)}
                  {v.current && <span className="badge badge-ok">{m.devices_this()}</span>}
                </span>
                {!v.current && (
                  <button type="button" className="btn btn-outline btn-small" onClick={() => signOut(v)} data-testid="device-signout">
                    {m.devices_signout()}
                  </button>
                )}
              </div>
              <dl className={s.facts}>
                <dt>{m.devices_address()}</dt>
                <dd>{[v.ip, v.place].filter(Boolean).join(" · ") || "—"}</dd>
                <dt>{m.devices_signed_in()}</dt>
                <dd>{formatDateTime(v.created_at)}</dd>
                <dt>{m.devices_last_seen()}</dt>
                <dd>{formatDateTime(v.last_seen_at)}</dd>
              </dl>
            </li>
          ))}
        </ul>
      )}
      {others.length > 0 && (
        <button type="button" className={`btn btn-block ${acct.btnDanger}`} onClick={signOutAll} data-testid="devices-signout-all">
          {m.devices_signout_all()}
        </button>
      )}
    </div>
  );
}
