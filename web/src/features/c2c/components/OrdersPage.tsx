/**
 * /legal/order: my C2C orders, newest first (spec §2), with the filter dialog (state, type, coin).
 * A tap leads the buyer of an unpaid order to the pay page and everything else to the detail.
 */
import { useState } from "react";
import { m } from "../../../i18n/index.ts";
import { Icon } from "../../../components/Icon.tsx";
import { LoadMoreFoot } from "../../../components/LoadMoreFoot.tsx";
import { Modal } from "../../../components/Modal.tsx";
import { EmptyState, ErrorState, SkeletonList } from "../../../components/States.tsx";
import { useLegalCoins, useMyOrders, type C2cType, type IsSure, type OrderFilter } from "../api.ts";
import { C2cGate, C2cNav, OrderCard, stateText } from "./common.tsx";
import s from "./c2c.module.css";

export default function OrdersPage() {
  return (
    <C2cGate>
      <Orders />
    </C2cGate>
  );
}

function Orders() {
  const [filter, setFilter] = useState<OrderFilter>({});
  const [dialog, setDialog] = useState(false);
  const active = Object.values(filter).filter((v) => v !== undefined).length;
  return (
    <div className={s.page} data-testid="c2c-orders">
      <C2cNav here="orders" />
      <div className={s.listBar}>
        <span className="muted">{active > 0 ? m.c2c_filters_on({ count: active }) : m.c2c_all_orders()}</span>
        <button type="button" className="btn btn-outline btn-small" onClick={() => setDialog(true)} data-testid="c2c-filter-open">
          <Icon name="filter" size={16} />
          {m.c2c_filter()}
        </button>
      </div>
      <OrderList key={JSON.stringify(filter)} filter={filter} />
      {dialog && (
        <FilterDialog
          value={filter}
          onClose={() => setDialog(false)}
          onApply={(f) => {
            setFilter(f);
            setDialog(false);
          }}
        />
      )}
    </div>
  );
}

function OrderList({ filter }: { filter: OrderFilter }) {
  const list = useMyOrders(filter);
  if (list.loading) return <SkeletonList rows={4} />;
  if (list.error) return <ErrorState message={list.error.message} onRetry={list.reload} />;
  if (list.items.length === 0) return <EmptyState text={m.c2c_no_orders()} />;
  return (
    <>
      <ul className={s.orders}>
        {list.items.map((o) => (
          <OrderCard key={o.id} order={o} />
        ))}
      </ul>
      <LoadMoreFoot count={list.items.length} hasMore={list.hasMore} loadingMore={list.loadingMore} moreError={list.moreError} loadMore={list.loadMore} />
    </>
  );
}

function Chips<T>({ label, value, options, onChange, testId }: { label: string; value: T; options: { value: T; label: string }[]; onChange: (v: T) => void; testId: string }) {
  return (
    <fieldset className={s.chipSet}>
      <legend className="field-label">{label}</legend>
      <div className={s.chips} role="radiogroup" aria-label={label}>
        {options.map((o) => (
          <button key={String(o.value)} type="button" role="radio" aria-checked={o.value === value} className={o.value === value ? "active" : ""} onClick={() => onChange(o.value)} data-testid={`${testId}-${String(o.value ?? "all")}`}>
            {o.label}
          </button>
        ))}
      </div>
    </fieldset>
  );
}

/** The filter dialog: the choices apply only on "Confirm"; "Reset" clears them. */
export function FilterDialog({ value, onClose, onApply }: { value: OrderFilter; onClose: () => void; onApply: (f: OrderFilter) => void }) {
  const coins = useLegalCoins();
  const [state, setState] = useState<IsSure | undefined>(value.is_sure);
  const [type, setType] = useState<C2cType | undefined>(value.type);
  const [coin, setCoin] = useState<number | undefined>(value.currency_id);
  const states: (IsSure | undefined)[] = [undefined, 0, 3, 1, 2];
  return (
    <Modal
      title={m.c2c_filter()}
      onClose={onClose}
      testId="c2c-filter-dialog"
      actions={
        <>
          <button type="button" className="btn btn-ghost" onClick={() => onApply({})} data-testid="c2c-filter-reset">
            {m.c2c_reset()}
          </button>
          <button type="button" className="btn btn-primary" onClick={() => onApply({ is_sure: state, type, currency_id: coin })} data-testid="c2c-filter-apply">
            {m.confirm()}
          </button>
        </>
      }
    >
      <div className={s.dialogBody}>
        <Chips label={m.c2c_state()} value={state} onChange={setState} testId="filter-state" options={states.map((v) => ({ value: v, label: v === undefined ? m.c2c_any() : stateText(v) }))} />
        <Chips
          label={m.c2c_type()}
          value={type}
          onChange={setType}
          testId="filter-type"
          options={[
            { value: undefined, label: m.c2c_any() },
            { value: "sell" as const, label: m.c2c_type_sell_advert() },
            { value: "buy" as const, label: m.c2c_type_buy_advert() },
          ]}
        />
        <Chips label={m.c2c_coin()} value={coin} onChange={setCoin} testId="filter-coin" options={[{ value: undefined, label: m.c2c_any() }, ...(coins.data ?? []).map((c) => ({ value: c.id as number | undefined, label: c.name }))]} />
      </div>
    </Modal>
  );
}
