/** Banner carousel: advances every 4 s, swipeable, tap opens the linked article. */
import { useEffect, useRef, useState } from "react";
import { useNavigate } from "react-router";
import { m } from "../../../i18n/index.ts";
import type { Banner } from "../api.ts";
import s from "./home.module.css";

const INTERVAL_MS = 4000;

export function BannerCarousel({ banners }: { banners: Banner[] }) {
  const navigate = useNavigate();
  const [index, setIndex] = useState(0);
  const [paused, setPaused] = useState(false);
  const touchX = useRef<number | null>(null);
  const count = banners.length;

  useEffect(() => {
    if (count < 2 || paused) return;
    const t = setInterval(() => setIndex((i) => (i + 1) % count), INTERVAL_MS);
    return () => clearInterval(t);
  }, [count, paused]);

  useEffect(() => {
    if (index >= count) setIndex(0);
  }, [count, index]);

  if (count === 0) return null;

  return (
    <section
      className={s.banner}
      aria-roledescription="carousel"
      aria-label={m.home_banners()}
      onTouchStart={(e) => {
        touchX.current = e.touches[0]?.clientX ?? null;
        setPaused(true);
      }}
      onTouchEnd={(e) => {
        const start = touchX.current;
        const end = e.changedTouches[0]?.clientX;
        touchX.current = null;
        setPaused(false);
        if (start === null || end === undefined) return;
        const dx = end - start;
        if (Math.abs(dx) > 40) setIndex((i) => (i + (dx < 0 ? 1 : count - 1)) % count);
      }}
    >
      <div className={s.bannerTrack} style={{ transform: `translateX(-${index * 100}%)` }}>
        {banners.map((b, i) => (
          <button
            type="button"
            key={b.id}
            className={s.bannerSlide}
            onClick={() => navigate(`/news/detail?id=${b.id}`)}
            aria-hidden={i !== index}
            tabIndex={i === index ? 0 : -1}
            aria-label={m.open_article()}
          >
            <img src={b.cover} alt="" loading={i === 0 ? "eager" : "lazy"} draggable={false} />
          </button>
        ))}
      </div>
      {count > 1 && (
        <div className={s.bannerDots}>
          {banners.map((b, i) => (
            <button
              type="button"
              key={b.id}
              className={`${s.bannerDot} ${i === index ? "active" : ""}`}
              onClick={() => setIndex(i)}
              aria-label={`${i + 1} / ${count}`}
              aria-current={i === index}
            />
          ))}
        </div>
      )}
    </section>
  );
}
