/**
 * Registration (spec §2, §5): account (e-mail or digits), password twice, image captcha (tap to
 * refresh; a new one after every failed submit because captchas are single-use), country code
 * (+86 default), invite code from ?code= (an invitation link: shown read-only with a note saying
 * whose link it came from is bound for good; "change" unlocks it), agreement. The account is
 * checked with the server first; a successful registration logs the user in.
 */
import { useCallback, useEffect, useState, type FormEvent } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { accountMode, registerSchema } from "../../../../../schemas/auth.ts";
import { getAppLocale, m } from "../../../i18n/index.ts";
import { errText } from "../../../i18n/errors.ts";
import { ApiFailure } from "../../../lib/api.ts";
import { toast } from "../../../lib/toast.ts";
import { Icon } from "../../../components/Icon.tsx";
import { Spinner } from "../../../components/States.tsx";
import { checkAccount, completeLogin, fetchCaptcha, fetchCountries, register, type Captcha, type Country } from "../api.ts";
import { fieldErrors } from "../validation.ts";
import { AccountField, AuthField, AuthFoot, AuthLayout, AuthSubmit, FieldError, PasswordField, useFieldErrors } from "./AuthLayout.tsx";
import s from "./auth.module.css";
import { ExactInput } from "../../../components/Field.tsx";

const DEFAULT_COUNTRY = "86";

const areaCode = (c: Country) => String(c.area_code).replace(/^\+/, "");

function countryName(c: Country): string {
  const l = getAppLocale();
  return l === "zh" || l === "hk" ? c.name_cn : c.name_en;
}

export default function RegisterPage() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [account, setAccount] = useState("");
  const [password, setPassword] = useState("");
  const [rePassword, setRePassword] = useState("");
  const [code, setCode] = useState("");
  const [invite, setInvite] = useState(() => (params.get("code") ?? "").trim());
  // Came with the link: the code is the inviter's, not something to type; "change" makes it editable.
  const [inviteLocked, setInviteLocked] = useState(() => (params.get("code") ?? "").trim() !== "");
  const [countryCode, setCountryCode] = useState(DEFAULT_COUNTRY);
  const [countries, setCountries] = useState<Country[]>([]);
  const [agreed, setAgreed] = useState(false);
  const [captcha, setCaptcha] = useState<Captcha | null>(null);
  const [captchaState, setCaptchaState] = useState<"loading" | "ready" | "error">("loading");
  const { errors, setErrors, clear, edit } = useFieldErrors();
  const [busy, setBusy] = useState(false);

  const loadCaptcha = useCallback(async () => {
    setCaptchaState("loading");
    try {
      setCaptcha(await fetchCaptcha());
      setCaptchaState("ready");
    } catch {
      setCaptcha(null);
      setCaptchaState("error");
    }
  }, []);

  useEffect(() => {
    void loadCaptcha();
  }, [loadCaptcha]);

  useEffect(() => {
    const controller = new AbortController();
    fetchCountries(controller.signal)
      .then((list) => setCountries(Array.isArray(list) ? list : []))
      .catch(() => setCountries([]));
    return () => controller.abort();
  }, []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    const mode = accountMode(account) ?? 1;
    const parsed = registerSchema.safeParse({
      type: mode,
      user_string: account,
      password,
      re_password: rePassword,
      country_code: countryCode,
      code_id: captcha?.code_id ?? "",
      code,
      extension_code: invite.trim() === "" ? undefined : invite,
    });
    const errs = parsed.success ? {} : fieldErrors(parsed.error);
    if (!agreed) errs.agreement = errText("agreement_required");
    if (!captcha && !errs.code) errs.code = errText("captcha_required");
    setErrors(errs);
    if (!parsed.success || !agreed) return;

    setBusy(true);
    try {
      await checkAccount(mode, parsed.data.user_string);
    } catch {
      setBusy(false);
      return; // "already registered" was shown by the API client
    }
    try {
      const session = await register({
        type: mode,
        user_string: parsed.data.user_string,
        password: parsed.data.password,
        re_password: parsed.data.re_password,
        country_code: parsed.data.country_code,
        code_id: parsed.data.code_id,
        code: parsed.data.code,
        ...(parsed.data.extension_code ? { extension_code: parsed.data.extension_code } : {}),
      });
      await completeLogin(session, parsed.data.user_string);
      toast.success(m.register_success());
      navigate("/", { replace: true });
    } catch (err) {
      if (err instanceof ApiFailure && (err.kind === "error" || err.kind === "network" || err.kind === "timeout" || err.kind === "bad_response")) {
        toast.error(`${m.api_tip()}${err.message}`);
      }
      // The captcha was consumed by this attempt, right or wrong: show a fresh one.
      setCode("");
      void loadCaptcha();
    } finally {
      setBusy(false);
    }
  };

  const codeOptions = countries.length > 0 ? countries : [{ country_id: 0, area_code: DEFAULT_COUNTRY, name_cn: "中国", name_en: "China" }];

  return (
    <AuthLayout heading={m.register_heading()} sub={m.register_sub()}>
      <form className="form" onSubmit={submit} noValidate>
        <AccountField label={m.label_account()} placeholder={m.account_placeholder()} value={account} onChange={edit("user_string", setAccount)} error={errors.user_string} errorId="reg-account-error" />

        <AuthField label={m.country_code()} errorId="reg-country-error" error={errors.country_code}>
          <div className="select-wrap">
            <select className="input" value={countryCode} onChange={edit("country_code", setCountryCode)} data-testid="country-code">
              {codeOptions.map((c) => (
                <option key={`${c.country_id}-${c.area_code}`} value={areaCode(c)}>
                  +{areaCode(c)} {countryName(c)}
                </option>
              ))}
            </select>
            <Icon name="chevronDown" size={18} className="select-caret" />
          </div>
        </AuthField>

        <PasswordField label={m.label_password()} name="password" autoComplete="new-password" placeholder={m.new_password_placeholder()} value={password} onChange={edit("password", setPassword)} error={errors.password} errorId="reg-password-error" />

        <PasswordField label={m.label_repassword()} name="re_password" autoComplete="new-password" placeholder={m.repassword_placeholder()} value={rePassword} onChange={edit("re_password", setRePassword)} error={errors.re_password} errorId="reg-repassword-error" />

        <AuthField label={m.label_captcha()} errorId="reg-captcha-error" error={errors.code ?? errors.code_id}>
          <div className="input-wrap">
            <input
              className="input"
              name="captcha"
              type="text"
              autoComplete="off"
              autoCapitalize="characters"
              spellCheck={false}
              maxLength={8}
              placeholder={m.captcha_placeholder()}
              value={code}
              onChange={edit("code", setCode)}
              aria-invalid={!!errors.code}
              aria-describedby="reg-captcha-error"
            />
            <button
              type="button"
              className={s.captcha}
              onClick={() => void loadCaptcha()}
              aria-label={m.captcha_refresh()}
              title={m.captcha_refresh()}
              data-testid="captcha-image"
            >
              {captchaState === "ready" && captcha ? (
                <img src={captcha.code} alt={m.captcha_alt()} width={120} height={40} />
              ) : captchaState === "loading" ? (
                <Spinner size={16} />
              ) : (
                <span className={s.captchaRetry}>
                  <Icon name="refresh" size={16} /> {m.retry()}
                </span>
              )}
            </button>
          </div>
        </AuthField>

        <AuthField label={m.label_invite()} errorId="reg-invite-error" error={errors.extension_code}>
          <ExactInput
            capitals
            className={inviteLocked ? `input ${s.inviteLocked}` : "input"}
            name="invite"
            type="text"
            placeholder={m.invite_placeholder()}
            value={invite}
            readOnly={inviteLocked}
            onChange={edit("extension_code", setInvite)}
            aria-invalid={!!errors.extension_code}
            aria-describedby={inviteLocked ? "reg-invite-note reg-invite-error" : "reg-invite-error"}
            data-testid="register-invite"
          />
          {inviteLocked && (
            <span className="form-note" id="reg-invite-note" data-testid="register-invite-note">
              {m.register_invite_from_link()}{" "}
              <button type="button" className={`text-btn ${s.inviteChange}`} onClick={() => setInviteLocked(false)} data-testid="register-invite-change">
                {m.register_invite_change()}
              </button>
            </span>
          )}
        </AuthField>

        <div className="field">
          <label className="checkbox">
            <input type="checkbox" checked={agreed} onChange={(e) => {
                setAgreed(e.target.checked);
                clear("agreement");
              }} data-testid="agree" />
            <span className="checkbox-box" aria-hidden="true">
              <Icon name="check" size={14} />
            </span>
            <span>
              {m.agree_prefix()}
              {m.agree_prefix() ? " " : ""}
              <Link to="/agreement">{m.user_agreement_link()}</Link>
              {m.agree_suffix()}
            </span>
          </label>
          <FieldError id="reg-agree-error" text={errors.agreement} />
        </div>

        <AuthSubmit busy={busy} testId="register-submit">
          {m.register_button()}
        </AuthSubmit>
        <AuthFoot text={m.have_account()}>
          <Link to="/login">{m.login_now()}</Link>
        </AuthFoot>
      </form>
    </AuthLayout>
  );
}
