/** One notice at a time, rotating every 5 s (spec §9); tap opens it, "more" opens the news list. */
import { useEffect, useState } from "react";
import { Link, useNavigate } from "react-router";
import { m } from "../../../i18n/index.ts";
import { formatShortDate } from "../../../lib/format.ts";
import { Icon } from "../../../components/Icon.tsx";
import type { Notice } from "../api.ts";
import s from "./home.module.css";

const ROTATE_MS = 5000;

export function NoticeTicker({ notices }: { notices: Notice[] }) {
  const navigate = useNavigate();
  const [index, setIndex] = useState(0);
  const count = notices.length;

  useEffect(() => {
    if (count < 2) return;
    const t = setInterval(() => setIndex((i) => (i + 1) % count), ROTATE_MS);
    return () => clearInterval(t);
  }, [count]);

  const current = notices[index % Math.max(count, 1)];
  if (!current) return null;

  return (
    <section className={s.notice} aria-label={m.home_notices()}>
      <Icon name="notice" size={18} className={s.noticeIcon} />
      <button type="button" className={s.noticeBody} onClick={() => navigate(`/news/detail?id=${current.id}`)} data-testid="notice">
        <span className={s.noticeTitle} key={current.id}>
          {current.title}
        </span>
        <span className={`${s.noticeTime} num`}>{formatShortDate(current.create_time)}</span>
      </button>
      <Link to="/news/list" className={s.noticeMore} aria-label={m.title_news()}>
        <Icon name="chevron" size={16} />
      </Link>
    </section>
  );
}
