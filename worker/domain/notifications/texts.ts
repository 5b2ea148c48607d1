/**
 * What each notification says, in the six languages, rendered at read time from its kind and
 * params (so a language switch changes old items too). English is the reference: TypeScript
 * refuses a language that misses a kind. `{name}` is replaced by that param; a param whose value
 * starts with "@" is a word of `WORDS` (an outcome, a reason, a direction) and is translated too;
 * a user's own text that starts with "@" is written "@@..." and shown as it was typed.
 *
 * Params each kind is given (amounts are decimal strings already formatted for the currency):
 *   deposit_credited      amount, currency
 *   deposit_rejected      amount, currency, reason
 *   withdrawal_sent       amount, currency, network, txid
 *   withdrawal_rejected   amount, currency, reason
 *   kyc_approved          level
 *   kyc_rejected          level, reason
 *   c2c_new_order         id, amount, currency, total, fiat
 *   c2c_paid              id, amount, currency, total, fiat
 *   c2c_released          id, amount, currency
 *   c2c_cancelled         id, amount, currency
 *   c2c_expired           id, amount, currency
 *   c2c_appeal_opened     id
 *   c2c_appeal_decided    id, outcome (@released | @returned)
 *   seconds_settled       id, pair, direction (@up | @down), outcome (@won | @lost), net (signed), currency,
 *                         entry, exit, entry_tick, exit_tick
 *   lever_closed          id, pair, reason (@user | @profit | @loss | @liquidation | @cap), pnl (signed, net of every fee), currency, price
 *   login_new_device      device, ip, time
 *   support_reply         id, subject
 *   invite_rebate         day (Beijing, YYYY-MM-DD), amount, currency
 *   vote_held             round, title, amount, currency
 *   vote_released         round, title, amount, currency
 *   insurance_bought      id, plan, amount, premium, cover, currency, day (UTC effective day, YYYY-MM-DD)
 *   insurance_paid        id, cover, currency
 *   insurance_queued      id, cover, currency, day (UTC pay day)
 *   insurance_ended       id
 *   insurance_expired     id
 *   launch_committed      title, amount, currency
 *   launch_allocated      title, alloc, token, cost, refund, currency
 *   launch_refunded       title, amount, currency
 *   launch_claimed        title, amount, token
 *   earn_subscribed       id, amount, currency, apr (percent)
 *   earn_interest         id, day (UTC, YYYY-MM-DD), amount, currency
 *   earn_redeemed         id, amount, currency
 *   earn_redeemed_early   id, amount, currency, forfeited
 *   earn_matured          id, amount, interest, currency
 *   mining_bought         id, plan, shares, cost, currency, days
 *   mining_paid           plan, hour (UTC, "YYYY-MM-DD HH:00"), shares, amount, fee, currency
 *   spot_filled           id, pair, side (@buy | @sell), qty, price (the average of the fills)
 *   spot_partial          id, pair, side (@buy | @sell), qty, price (the average of the fills)
 *   spot_triggered        id, pair, side (@buy | @sell), trigger, price, qty (a conditional order placed its limit order)
 *   c2c_message           id, text (the start of the message)
 *   security_passkey_added / security_passkey_removed   name
 *   security_anti_phishing, security_whitelist_on, security_whitelist_off   (none)
 *   security_locked       days, time (Beijing, when the lock ends)
 *   security_address_added / security_address_removed   currency, address
 *   price_alert_above     pair, level, price (the trade that reached it)
 *   price_alert_below     pair, level, price
 *   price_alert_move      pair, price, from (the window's first price), move (signed percent), percent (the alert's), hours (1 | 24)
 *   apikey_created        label, scopes ("read, trade"), time (Beijing)
 */
import type { Locale } from "../../../schemas/locale.ts";
import type { NotificationKind } from "../../../schemas/notification.ts";

interface Text {
  title: string;
  body: string;
}
type Catalogue = Record<NotificationKind, Text>;

const en: Catalogue = {
  deposit_credited: { title: "Deposit credited", body: "{amount} {currency} has been credited to your spot account." },
  deposit_rejected: { title: "Deposit rejected", body: "Your deposit of {amount} {currency} was rejected: {reason}" },
  withdrawal_sent: { title: "Withdrawal sent", body: "{amount} {currency} was sent on {network}. Transaction id: {txid}" },
  withdrawal_rejected: { title: "Withdrawal rejected", body: "Your withdrawal of {amount} {currency} was rejected and the funds are back in your account: {reason}" },
  kyc_approved: { title: "Identity verified", body: "Your identity verification (level {level}) was approved." },
  kyc_rejected: { title: "Identity verification rejected", body: "Your identity verification (level {level}) was rejected: {reason}" },
  c2c_new_order: { title: "New C2C order", body: "Order #{id} on your advert: {amount} {currency} for {total} {fiat}." },
  c2c_paid: { title: "Buyer marked as paid", body: "Order #{id}: the buyer says {total} {fiat} was paid. Check your receiving account, then release {amount} {currency}." },
  c2c_released: { title: "Coins released", body: "Order #{id}: {amount} {currency} was released to your account." },
  c2c_cancelled: { title: "C2C order cancelled", body: "Order #{id} ({amount} {currency}) was cancelled." },
  c2c_expired: { title: "C2C order timed out", body: "Order #{id} ({amount} {currency}) was not paid in time and was cancelled." },
  c2c_appeal_opened: { title: "Appeal opened", body: "An appeal was opened on order #{id}. An operator will review it." },
  c2c_appeal_decided: { title: "Appeal decided", body: "The appeal on order #{id} was decided: {outcome}." },
  seconds_settled: { title: "Contract settled: {outcome}", body: "{pair} {direction} #{id}: entry {entry} (tick #{entry_tick}), exit {exit} (tick #{exit_tick}). Net {net} {currency}." },
  lever_closed: { title: "Position closed: {reason}", body: "{pair} position #{id} closed at {price}. Net P/L after fees {pnl} {currency}." },
  login_new_device: { title: "Login from a new device", body: "Your account was signed in at {time} (Beijing time) from {device}, address {ip}. If this was not you, change your password now." },
  support_reply: { title: "Support replied", body: "There is a reply on your ticket #{id}: {subject}" },
  invite_rebate: { title: "Invitation rebate paid", body: "Your invitation rebate for {day} (Beijing time): {amount} {currency}, from the fees your invitees paid." },
  vote_held: { title: "Vote hold placed", body: "For your votes in round \"{title}\", {amount} {currency} is held in your spot account until the round ends. It stays yours; one hold covers all your votes in this round." },
  vote_released: { title: "Vote hold released", body: "Round \"{title}\" is over: the {amount} {currency} held for your votes is available again in your spot account." },
  insurance_bought: { title: "Cover bought", body: "Cover #{id} ({plan}): {amount} {currency} insured for a premium of {premium} {currency}, paid from your spot account. The exchange has reserved the cover of {cover} {currency}. In force from {day} 00:00 UTC." },
  insurance_paid: { title: "Cover paid", body: "Cover #{id}: {cover} {currency} has been paid into your seconds account." },
  insurance_queued: { title: "Claim queued", body: "Cover #{id}: two payouts were already made today, so your claim of {cover} {currency} is paid on {day} (UTC)." },
  insurance_ended: { title: "Cover ended", body: "Cover #{id} ended: your seconds account reached +100 % of the insured amount. Nothing more is paid on it." },
  insurance_expired: { title: "Cover expired", body: "Cover #{id} reached its end date without a claim. Nothing more is paid on it." },
  launch_committed: { title: "Commitment escrowed", body: "{title}: {amount} {currency} is held in your spot account for this sale. It stays yours until the window ends." },
  launch_allocated: { title: "Launch allocation: {alloc} {token}", body: "{title}: you were allocated {alloc} {token} for {cost} {currency}; {refund} {currency} was returned to your spot account. The tokens unlock on the published schedule." },
  launch_refunded: { title: "Launch commitment refunded", body: "{title} was cancelled: your {amount} {currency} is back in your spot account in full." },
  launch_claimed: { title: "Unlocked tokens claimed", body: "{title}: {amount} {token} moved to your available spot balance." },
  earn_subscribed: { title: "Savings subscribed", body: "Position #{id}: {amount} {currency} is held in your spot account at {apr} % a year. Its interest is reserved from the budget." },
  earn_interest: { title: "Savings interest paid", body: "Position #{id}: {amount} {currency} interest for {day} (UTC) was paid into your spot account." },
  earn_redeemed: { title: "Savings redeemed", body: "Position #{id}: {amount} {currency} is available in your spot account again." },
  earn_redeemed_early: { title: "Savings redeemed early", body: "Position #{id}: {amount} {currency} is available in your spot account again; the {forfeited} {currency} interest accrued was forfeited, as stated when you subscribed." },
  earn_matured: { title: "Savings matured", body: "Position #{id}: {amount} {currency} principal and {interest} {currency} interest were paid into your spot account." },
  mining_bought: { title: "Mining shares bought", body: "Purchase #{id}: {shares} shares of {plan} for {cost} {currency}, paid from your spot account to the exchange. They count for every hour from now for {days} days; payouts are what the pool actually pays, nothing is promised." },
  mining_paid: { title: "Mining payout: {amount} {currency}", body: "{plan}, hour {hour} UTC: your {shares} shares' part of what the pool paid, minus the {fee} {currency} fee, was paid into your spot account." },
  spot_filled: { title: "Order filled", body: "{pair} {side} order #{id}: {qty} filled at an average of {price}. Nothing is left to fill." },
  spot_partial: { title: "Order partly filled", body: "{pair} {side} order #{id}: {qty} filled at an average of {price}." },
  spot_triggered: { title: "Conditional order triggered", body: "{pair} conditional {side} #{id}: the price reached {trigger}, so a limit {side} of {qty} at {price} was placed." },
  c2c_message: { title: "New message on order #{id}", body: "{text}" },
  security_passkey_added: { title: "Passkey added", body: "A passkey named \"{name}\" was added to your account. If this was not you, lock your account's settings and contact support." },
  security_passkey_removed: { title: "Passkey removed", body: "The passkey \"{name}\" was removed from your account." },
  security_anti_phishing: { title: "Anti-phishing code changed", body: "Your anti-phishing code was changed. Every genuine e-mail and SMS from us shows it." },
  security_whitelist_on: { title: "Withdrawal whitelist on", body: "Withdrawals now go only to addresses in your address book. A new address can be used 24 hours after it is added." },
  security_whitelist_off: { title: "Withdrawal whitelist off", body: "Withdrawals can go to any address again. If this was not you, contact support now." },
  security_locked: { title: "Security settings locked", body: "Your whitelist, address book and second factors are locked for {days} days, until {time} (Beijing time)." },
  security_address_added: { title: "Withdrawal address added", body: "{currency} address {address} was added to your address book." },
  security_address_removed: { title: "Withdrawal address removed", body: "{currency} address {address} was removed from your address book." },
  price_alert_above: { title: "Price alert: {pair} at or above {level}", body: "{pair} traded at {price}, at or above your alert level {level}. The alert has fired and is done." },
  price_alert_below: { title: "Price alert: {pair} at or below {level}", body: "{pair} traded at {price}, at or below your alert level {level}. The alert has fired and is done." },
  price_alert_move: { title: "Price alert: {pair} moved {move} %", body: "{pair} traded at {price}, {move} % against {from}, its first price in the last {hours} h (your alert: {percent} %). The alert has fired and is done." },
  apikey_created: { title: "New API key", body: "An API key “{label}” ({scopes}) was created on your account at {time} (Beijing time). If this was not you, delete it under Security → API keys and change your password." },
};

const zh: Catalogue = {
  deposit_credited: { title: "充值已到账", body: "{amount} {currency} 已存入您的币币账户。" },
  deposit_rejected: { title: "充值被驳回", body: "您的 {amount} {currency} 充值被驳回：{reason}" },
  withdrawal_sent: { title: "提币已发出", body: "{amount} {currency} 已通过 {network} 发出。交易哈希：{txid}" },
  withdrawal_rejected: { title: "提币被驳回", body: "您的 {amount} {currency} 提币被驳回，资金已退回账户：{reason}" },
  kyc_approved: { title: "身份认证已通过", body: "您的身份认证（等级 {level}）已通过审核。" },
  kyc_rejected: { title: "身份认证被驳回", body: "您的身份认证（等级 {level}）被驳回：{reason}" },
  c2c_new_order: { title: "新的 C2C 订单", body: "您的广告有新订单 #{id}：{amount} {currency}，共 {total} {fiat}。" },
  c2c_paid: { title: "买家已标记付款", body: "订单 #{id}：买家称已支付 {total} {fiat}。请核对收款账户后放行 {amount} {currency}。" },
  c2c_released: { title: "币已放行", body: "订单 #{id}：{amount} {currency} 已放行到您的账户。" },
  c2c_cancelled: { title: "C2C 订单已取消", body: "订单 #{id}（{amount} {currency}）已取消。" },
  c2c_expired: { title: "C2C 订单已超时", body: "订单 #{id}（{amount} {currency}）未在时限内付款，已取消。" },
  c2c_appeal_opened: { title: "申诉已发起", body: "订单 #{id} 已发起申诉，客服将进行审核。" },
  c2c_appeal_decided: { title: "申诉已裁决", body: "订单 #{id} 的申诉结果：{outcome}。" },
  seconds_settled: { title: "合约已结算：{outcome}", body: "{pair} {direction} #{id}：开仓 {entry}（行情 #{entry_tick}），平仓 {exit}（行情 #{exit_tick}）。净盈亏 {net} {currency}。" },
  lever_closed: { title: "仓位已平仓：{reason}", body: "{pair} 仓位 #{id} 以 {price} 平仓。扣除手续费后净盈亏 {pnl} {currency}。" },
  login_new_device: { title: "新设备登录", body: "您的账户于北京时间 {time} 在 {device}（地址 {ip}）登录。如非本人操作，请立即修改密码。" },
  support_reply: { title: "客服已回复", body: "您的工单 #{id} 有新回复：{subject}" },
  invite_rebate: { title: "邀请返佣已到账", body: "您 {day}（北京时间）的邀请返佣：{amount} {currency}，来自您邀请的用户实际支付的手续费。" },
  vote_held: { title: "投票冻结已生效", body: "为您在「{title}」一轮的投票，{amount} {currency} 已在您的币币账户冻结至本轮结束。资金仍属于您；本轮所有投票共用这一笔冻结。" },
  vote_released: { title: "投票冻结已解除", body: "「{title}」一轮已结束：为投票冻结的 {amount} {currency} 已回到您币币账户的可用余额。" },
  insurance_bought: { title: "保险已购买", body: "保险 #{id}（{plan}）：投保 {amount} {currency}，保费 {premium} {currency} 已从币币账户支付。平台已预留赔付金 {cover} {currency}。自 {day} 00:00（UTC）起生效。" },
  insurance_paid: { title: "保险已赔付", body: "保险 #{id}：{cover} {currency} 已赔付到您的秒合约账户。" },
  insurance_queued: { title: "理赔已排队", body: "保险 #{id}：今日已完成两次赔付，您的 {cover} {currency} 理赔将于 {day}（UTC）支付。" },
  insurance_ended: { title: "保险已结束", body: "保险 #{id} 已结束：您的秒合约账户已达到投保金额的 +100%，不再赔付。" },
  insurance_expired: { title: "保险已到期", body: "保险 #{id} 已到期且未理赔，不再赔付。" },
  launch_committed: { title: "认购资金已托管", body: "{title}：{amount} {currency} 已冻结在您的币币账户中用于本次认购。时间窗结束前仍归您所有。" },
  launch_allocated: { title: "认购分配：{alloc} {token}", body: "{title}：您获配 {alloc} {token}，花费 {cost} {currency}；{refund} {currency} 已退回您的币币账户。代币按公布的计划解锁。" },
  launch_refunded: { title: "认购资金已退还", body: "{title} 已取消：您的 {amount} {currency} 已全额退回币币账户。" },
  launch_claimed: { title: "已领取解锁代币", body: "{title}：{amount} {token} 已转入您的币币可用余额。" },
  earn_subscribed: { title: "理财已申购", body: "持仓 #{id}：{amount} {currency} 冻结在您的币币账户，年化 {apr}%。其利息已从预算中预留。" },
  earn_interest: { title: "理财利息已发放", body: "持仓 #{id}：{day}（UTC）的利息 {amount} {currency} 已存入您的币币账户。" },
  earn_redeemed: { title: "理财已赎回", body: "持仓 #{id}：{amount} {currency} 已回到您的币币账户可用余额。" },
  earn_redeemed_early: { title: "理财已提前赎回", body: "持仓 #{id}：{amount} {currency} 已回到您的币币账户可用余额；按申购时的说明，已累计的 {forfeited} {currency} 利息不予发放。" },
  earn_matured: { title: "理财已到期", body: "持仓 #{id}：本金 {amount} {currency} 和利息 {interest} {currency} 已存入您的币币账户。" },
  mining_bought: { title: "已购买矿机份额", body: "订单 #{id}：{plan} {shares} 份，{cost} {currency} 已从币币账户支付给平台。自现在起 {days} 天内每小时计入；收益为矿池实际支付的金额，不作任何承诺。" },
  mining_paid: { title: "挖矿收益：{amount} {currency}", body: "{plan}，{hour}（UTC）这一小时：按您的 {shares} 份分得的矿池实际支付金额，扣除手续费 {fee} {currency} 后已存入您的币币账户。" },
  spot_filled: { title: "订单已成交", body: "{pair} {side}单 #{id}：成交 {qty}，均价 {price}。已全部成交。" },
  spot_partial: { title: "订单部分成交", body: "{pair} {side}单 #{id}：成交 {qty}，均价 {price}。" },
  spot_triggered: { title: "条件单已触发", body: "{pair} 条件{side}单 #{id}：价格已达 {trigger}，已按 {price} 下限价{side}单，数量 {qty}。" },
  c2c_message: { title: "订单 #{id} 有新消息", body: "{text}" },
  security_passkey_added: { title: "已添加通行密钥", body: "您的账户添加了名为“{name}”的通行密钥。如非本人操作，请锁定账户设置并联系客服。" },
  security_passkey_removed: { title: "已删除通行密钥", body: "通行密钥“{name}”已从您的账户删除。" },
  security_anti_phishing: { title: "防钓鱼码已更改", body: "您的防钓鱼码已更改。我们发出的每封真实邮件和短信都会显示它。" },
  security_whitelist_on: { title: "提币白名单已开启", body: "现在只能提币到地址簿中的地址。新地址添加 24 小时后才能使用。" },
  security_whitelist_off: { title: "提币白名单已关闭", body: "现在可以提币到任何地址。如非本人操作，请立即联系客服。" },
  security_locked: { title: "安全设置已锁定", body: "您的白名单、地址簿和二次验证已锁定 {days} 天，至北京时间 {time}。" },
  security_address_added: { title: "已添加提币地址", body: "{currency} 地址 {address} 已添加到您的地址簿。" },
  security_address_removed: { title: "已删除提币地址", body: "{currency} 地址 {address} 已从您的地址簿删除。" },
  price_alert_above: { title: "价格提醒：{pair} 达到或高于 {level}", body: "{pair} 成交价 {price}，已达到或高于您的提醒价位 {level}。该提醒已触发并结束。" },
  price_alert_below: { title: "价格提醒：{pair} 达到或低于 {level}", body: "{pair} 成交价 {price}，已达到或低于您的提醒价位 {level}。该提醒已触发并结束。" },
  price_alert_move: { title: "价格提醒：{pair} 涨跌 {move} %", body: "{pair} 成交价 {price}，相对过去 {hours} 小时内的首个价格 {from} 变动 {move} %（您的提醒：{percent} %）。该提醒已触发并结束。" },
  apikey_created: { title: "新的 API 密钥", body: "您的账户于北京时间 {time} 创建了 API 密钥“{label}”（{scopes}）。如非本人操作，请在 安全中心 → API 密钥 中删除并修改密码。" },
};

const hk: Catalogue = {
  deposit_credited: { title: "充值已到賬", body: "{amount} {currency} 已存入您的幣幣賬戶。" },
  deposit_rejected: { title: "充值被駁回", body: "您的 {amount} {currency} 充值被駁回：{reason}" },
  withdrawal_sent: { title: "提幣已發出", body: "{amount} {currency} 已通過 {network} 發出。交易哈希：{txid}" },
  withdrawal_rejected: { title: "提幣被駁回", body: "您的 {amount} {currency} 提幣被駁回，資金已退回賬戶：{reason}" },
  kyc_approved: { title: "身份認證已通過", body: "您的身份認證（等級 {level}）已通過審核。" },
  kyc_rejected: { title: "身份認證被駁回", body: "您的身份認證（等級 {level}）被駁回：{reason}" },
  c2c_new_order: { title: "新的 C2C 訂單", body: "您的廣告有新訂單 #{id}：{amount} {currency}，共 {total} {fiat}。" },
  c2c_paid: { title: "買家已標記付款", body: "訂單 #{id}：買家稱已支付 {total} {fiat}。請核對收款賬戶後放行 {amount} {currency}。" },
  c2c_released: { title: "幣已放行", body: "訂單 #{id}：{amount} {currency} 已放行到您的賬戶。" },
  c2c_cancelled: { title: "C2C 訂單已取消", body: "訂單 #{id}（{amount} {currency}）已取消。" },
  c2c_expired: { title: "C2C 訂單已超時", body: "訂單 #{id}（{amount} {currency}）未在時限內付款，已取消。" },
  c2c_appeal_opened: { title: "申訴已發起", body: "訂單 #{id} 已發起申訴，客服將進行審核。" },
  c2c_appeal_decided: { title: "申訴已裁決", body: "訂單 #{id} 的申訴結果：{outcome}。" },
  seconds_settled: { title: "合約已結算：{outcome}", body: "{pair} {direction} #{id}：開倉 {entry}（行情 #{entry_tick}），平倉 {exit}（行情 #{exit_tick}）。淨盈虧 {net} {currency}。" },
  lever_closed: { title: "倉位已平倉：{reason}", body: "{pair} 倉位 #{id} 以 {price} 平倉。扣除手續費後淨盈虧 {pnl} {currency}。" },
  login_new_device: { title: "新設備登錄", body: "您的賬戶於北京時間 {time} 在 {device}（地址 {ip}）登錄。如非本人操作，請立即修改密碼。" },
  support_reply: { title: "客服已回覆", body: "您的工單 #{id} 有新回覆：{subject}" },
  invite_rebate: { title: "邀請返佣已到賬", body: "您 {day}（北京時間）的邀請返佣：{amount} {currency}，來自您邀請的用戶實際支付的手續費。" },
  vote_held: { title: "投票凍結已生效", body: "為您在「{title}」一輪的投票，{amount} {currency} 已在您的幣幣帳戶凍結至本輪結束。資金仍屬於您；本輪所有投票共用這一筆凍結。" },
  vote_released: { title: "投票凍結已解除", body: "「{title}」一輪已結束：為投票凍結的 {amount} {currency} 已回到您幣幣帳戶的可用餘額。" },
  insurance_bought: { title: "保險已購買", body: "保險 #{id}（{plan}）：投保 {amount} {currency}，保費 {premium} {currency} 已從幣幣賬戶支付。平台已預留賠付金 {cover} {currency}。自 {day} 00:00（UTC）起生效。" },
  insurance_paid: { title: "保險已賠付", body: "保險 #{id}：{cover} {currency} 已賠付到您的秒合約賬戶。" },
  insurance_queued: { title: "理賠已排隊", body: "保險 #{id}：今日已完成兩次賠付，您的 {cover} {currency} 理賠將於 {day}（UTC）支付。" },
  insurance_ended: { title: "保險已結束", body: "保險 #{id} 已結束：您的秒合約賬戶已達到投保金額的 +100%，不再賠付。" },
  insurance_expired: { title: "保險已到期", body: "保險 #{id} 已到期且未理賠，不再賠付。" },
  launch_committed: { title: "認購資金已託管", body: "{title}：{amount} {currency} 已凍結在您的幣幣賬戶中用於本次認購。時間窗結束前仍歸您所有。" },
  launch_allocated: { title: "認購分配：{alloc} {token}", body: "{title}：您獲配 {alloc} {token}，花費 {cost} {currency}；{refund} {currency} 已退回您的幣幣賬戶。代幣按公佈的計劃解鎖。" },
  launch_refunded: { title: "認購資金已退還", body: "{title} 已取消：您的 {amount} {currency} 已全額退回幣幣賬戶。" },
  launch_claimed: { title: "已領取解鎖代幣", body: "{title}：{amount} {token} 已轉入您的幣幣可用餘額。" },
  earn_subscribed: { title: "理財已申購", body: "持倉 #{id}：{amount} {currency} 凍結在您的幣幣賬戶，年化 {apr}%。其利息已從預算中預留。" },
  earn_interest: { title: "理財利息已發放", body: "持倉 #{id}：{day}（UTC）的利息 {amount} {currency} 已存入您的幣幣賬戶。" },
  earn_redeemed: { title: "理財已贖回", body: "持倉 #{id}：{amount} {currency} 已回到您的幣幣賬戶可用餘額。" },
  earn_redeemed_early: { title: "理財已提前贖回", body: "持倉 #{id}：{amount} {currency} 已回到您的幣幣賬戶可用餘額；按申購時的說明，已累計的 {forfeited} {currency} 利息不予發放。" },
  earn_matured: { title: "理財已到期", body: "持倉 #{id}：本金 {amount} {currency} 和利息 {interest} {currency} 已存入您的幣幣賬戶。" },
  mining_bought: { title: "已購買礦機份額", body: "訂單 #{id}：{plan} {shares} 份，{cost} {currency} 已從幣幣賬戶支付給平台。自現在起 {days} 天內每小時計入；收益為礦池實際支付的金額，不作任何承諾。" },
  mining_paid: { title: "挖礦收益：{amount} {currency}", body: "{plan}，{hour}（UTC）這一小時：按您的 {shares} 份分得的礦池實際支付金額，扣除手續費 {fee} {currency} 後已存入您的幣幣賬戶。" },
  spot_filled: { title: "訂單已成交", body: "{pair} {side}單 #{id}：成交 {qty}，均價 {price}。已全部成交。" },
  spot_partial: { title: "訂單部分成交", body: "{pair} {side}單 #{id}：成交 {qty}，均價 {price}。" },
  spot_triggered: { title: "條件單已觸發", body: "{pair} 條件{side}單 #{id}：價格已達 {trigger}，已按 {price} 下限價{side}單，數量 {qty}。" },
  c2c_message: { title: "訂單 #{id} 有新消息", body: "{text}" },
  security_passkey_added: { title: "已新增通行密鑰", body: "您的賬戶新增了名為「{name}」的通行密鑰。如非本人操作，請鎖定賬戶設定並聯絡客服。" },
  security_passkey_removed: { title: "已刪除通行密鑰", body: "通行密鑰「{name}」已從您的賬戶刪除。" },
  security_anti_phishing: { title: "防釣魚碼已更改", body: "您的防釣魚碼已更改。我們發出的每封真實郵件和短訊都會顯示它。" },
  security_whitelist_on: { title: "提幣白名單已開啟", body: "現在只能提幣到地址簿中的地址。新地址新增 24 小時後才能使用。" },
  security_whitelist_off: { title: "提幣白名單已關閉", body: "現在可以提幣到任何地址。如非本人操作，請立即聯絡客服。" },
  security_locked: { title: "安全設定已鎖定", body: "您的白名單、地址簿和二次驗證已鎖定 {days} 天，至北京時間 {time}。" },
  security_address_added: { title: "已新增提幣地址", body: "{currency} 地址 {address} 已新增到您的地址簿。" },
  security_address_removed: { title: "已刪除提幣地址", body: "{currency} 地址 {address} 已從您的地址簿刪除。" },
  price_alert_above: { title: "價格提醒：{pair} 達到或高於 {level}", body: "{pair} 成交價 {price}，已達到或高於您的提醒價位 {level}。此提醒已觸發並結束。" },
  price_alert_below: { title: "價格提醒：{pair} 達到或低於 {level}", body: "{pair} 成交價 {price}，已達到或低於您的提醒價位 {level}。此提醒已觸發並結束。" },
  price_alert_move: { title: "價格提醒：{pair} 漲跌 {move} %", body: "{pair} 成交價 {price}，相對過去 {hours} 小時內的首個價格 {from} 變動 {move} %（您的提醒：{percent} %）。此提醒已觸發並結束。" },
  apikey_created: { title: "新的 API 密鑰", body: "您的帳戶於北京時間 {time} 建立了 API 密鑰「{label}」（{scopes}）。如非本人操作，請在 安全中心 → API 密鑰 中刪除並修改密碼。" },
};

const kr: Catalogue = {
  deposit_credited: { title: "입금 완료", body: "{amount} {currency}이(가) 현물 계정에 입금되었습니다." },
  deposit_rejected: { title: "입금 거절", body: "{amount} {currency} 입금이 거절되었습니다: {reason}" },
  withdrawal_sent: { title: "출금 전송됨", body: "{amount} {currency}이(가) {network}(으)로 전송되었습니다. 거래 ID: {txid}" },
  withdrawal_rejected: { title: "출금 거절", body: "{amount} {currency} 출금이 거절되어 자금이 계정으로 반환되었습니다: {reason}" },
  kyc_approved: { title: "본인 인증 완료", body: "본인 인증(레벨 {level})이 승인되었습니다." },
  kyc_rejected: { title: "본인 인증 거절", body: "본인 인증(레벨 {level})이 거절되었습니다: {reason}" },
  c2c_new_order: { title: "새 C2C 주문", body: "광고에 새 주문 #{id}: {amount} {currency}, {total} {fiat}." },
  c2c_paid: { title: "구매자 결제 완료 표시", body: "주문 #{id}: 구매자가 {total} {fiat}을(를) 결제했다고 합니다. 수취 계좌를 확인한 후 {amount} {currency}을(를) 릴리스하세요." },
  c2c_released: { title: "코인 릴리스됨", body: "주문 #{id}: {amount} {currency}이(가) 계정으로 릴리스되었습니다." },
  c2c_cancelled: { title: "C2C 주문 취소", body: "주문 #{id}({amount} {currency})이(가) 취소되었습니다." },
  c2c_expired: { title: "C2C 주문 시간 초과", body: "주문 #{id}({amount} {currency})이(가) 기한 내에 결제되지 않아 취소되었습니다." },
  c2c_appeal_opened: { title: "이의 제기 접수", body: "주문 #{id}에 이의 제기가 접수되었습니다. 운영자가 검토합니다." },
  c2c_appeal_decided: { title: "이의 제기 결정", body: "주문 #{id}의 이의 제기 결과: {outcome}." },
  seconds_settled: { title: "계약 정산: {outcome}", body: "{pair} {direction} #{id}: 진입 {entry}(틱 #{entry_tick}), 종료 {exit}(틱 #{exit_tick}). 순손익 {net} {currency}." },
  lever_closed: { title: "포지션 종료: {reason}", body: "{pair} 포지션 #{id}이(가) {price}에 종료되었습니다. 수수료 차감 후 순손익 {pnl} {currency}." },
  login_new_device: { title: "새 기기에서 로그인", body: "베이징 시간 {time}에 {device}(주소 {ip})에서 계정에 로그인했습니다. 본인이 아니라면 지금 비밀번호를 변경하세요." },
  support_reply: { title: "고객센터 답변", body: "티켓 #{id}에 답변이 있습니다: {subject}" },
  invite_rebate: { title: "초대 리베이트 지급", body: "{day}(베이징 시간) 초대 리베이트: {amount} {currency}. 초대한 사용자가 실제로 낸 수수료에서 지급됩니다." },
  vote_held: { title: "투표 보류 설정", body: "\"{title}\" 라운드 투표를 위해 {amount} {currency}가 라운드가 끝날 때까지 현물 계정에 보류됩니다. 자금은 계속 본인 소유이며, 이 라운드의 모든 투표에 보류는 한 번입니다." },
  vote_released: { title: "투표 보류 해제", body: "\"{title}\" 라운드가 끝났습니다. 투표를 위해 보류된 {amount} {currency}를 현물 계정에서 다시 사용할 수 있습니다." },
  insurance_bought: { title: "보험 구매 완료", body: "보험 #{id}({plan}): {amount} {currency} 보장, 보험료 {premium} {currency}는 현물 계정에서 지급되었습니다. 거래소가 보장금 {cover} {currency}를 적립했습니다. {day} 00:00 UTC부터 효력이 있습니다." },
  insurance_paid: { title: "보험금 지급", body: "보험 #{id}: {cover} {currency}가 초 계약 계정으로 지급되었습니다." },
  insurance_queued: { title: "청구 대기", body: "보험 #{id}: 오늘 이미 두 번 지급되어 {cover} {currency} 청구는 {day}(UTC)에 지급됩니다." },
  insurance_ended: { title: "보험 종료", body: "보험 #{id} 종료: 초 계약 계정이 보험 금액의 +100%에 도달했습니다. 더 이상 지급되지 않습니다." },
  insurance_expired: { title: "보험 만료", body: "보험 #{id}가 청구 없이 만료되었습니다. 더 이상 지급되지 않습니다." },
  launch_committed: { title: "청약 자금 예치", body: "{title}: {amount} {currency}이(가) 이 세일을 위해 현물 계정에 동결되었습니다. 기간이 끝날 때까지 귀하의 자산입니다." },
  launch_allocated: { title: "런치 배정: {alloc} {token}", body: "{title}: {alloc} {token}을(를) {cost} {currency}에 배정받았고 {refund} {currency}은(는) 현물 계정으로 반환되었습니다. 토큰은 공개된 일정에 따라 잠금 해제됩니다." },
  launch_refunded: { title: "청약 자금 환불", body: "{title}이(가) 취소되었습니다: {amount} {currency} 전액이 현물 계정으로 돌아왔습니다." },
  launch_claimed: { title: "잠금 해제 토큰 수령", body: "{title}: {amount} {token}이(가) 현물 사용 가능 잔액으로 이동했습니다." },
  earn_subscribed: { title: "예치 가입 완료", body: "포지션 #{id}: {amount} {currency}가 연 {apr}%로 현물 계정에 묶였습니다. 이자는 예산에서 미리 확보되었습니다." },
  earn_interest: { title: "예치 이자 지급", body: "포지션 #{id}: {day}(UTC) 이자 {amount} {currency}가 현물 계정에 지급되었습니다." },
  earn_redeemed: { title: "예치 상환 완료", body: "포지션 #{id}: {amount} {currency}를 현물 계정에서 다시 사용할 수 있습니다." },
  earn_redeemed_early: { title: "예치 중도 상환", body: "포지션 #{id}: {amount} {currency}를 현물 계정에서 다시 사용할 수 있습니다. 가입 시 안내대로 누적 이자 {forfeited} {currency}는 지급되지 않습니다." },
  earn_matured: { title: "예치 만기", body: "포지션 #{id}: 원금 {amount} {currency}와 이자 {interest} {currency}가 현물 계정에 지급되었습니다." },
  mining_bought: { title: "채굴 지분 구매 완료", body: "구매 #{id}: {plan} {shares}지분을 {cost} {currency}에 구매했습니다. 현물 계정에서 거래소로 지급되었습니다. 지금부터 {days}일 동안 매시간 반영되며, 지급액은 풀이 실제로 지급한 금액이고 아무것도 약속되지 않습니다." },
  mining_paid: { title: "채굴 지급: {amount} {currency}", body: "{plan}, {hour} UTC 시간: 풀이 지급한 금액 중 회원님의 {shares}지분 몫에서 수수료 {fee} {currency}를 뺀 금액이 현물 계정에 입금되었습니다." },
  spot_filled: { title: "주문 체결 완료", body: "{pair} {side} 주문 #{id}: {qty} 체결, 평균가 {price}. 남은 수량이 없습니다." },
  spot_partial: { title: "주문 일부 체결", body: "{pair} {side} 주문 #{id}: {qty} 체결, 평균가 {price}." },
  spot_triggered: { title: "조건부 주문 발동", body: "{pair} 조건부 {side} #{id}: 가격이 {trigger}에 도달하여 {price}에 {qty} 지정가 {side} 주문이 들어갔습니다." },
  c2c_message: { title: "주문 #{id}에 새 메시지", body: "{text}" },
  security_passkey_added: { title: "패스키 추가됨", body: "\"{name}\" 패스키가 계정에 추가되었습니다. 본인이 아니라면 계정 설정을 잠그고 고객지원에 문의하세요." },
  security_passkey_removed: { title: "패스키 삭제됨", body: "\"{name}\" 패스키가 계정에서 삭제되었습니다." },
  security_anti_phishing: { title: "피싱 방지 코드 변경됨", body: "피싱 방지 코드가 변경되었습니다. 저희가 보내는 모든 정식 이메일과 SMS에 이 코드가 표시됩니다." },
  security_whitelist_on: { title: "출금 화이트리스트 켜짐", body: "이제 주소록에 있는 주소로만 출금됩니다. 새 주소는 추가 후 24시간이 지나야 사용할 수 있습니다." },
  security_whitelist_off: { title: "출금 화이트리스트 꺼짐", body: "이제 모든 주소로 출금할 수 있습니다. 본인이 아니라면 지금 고객지원에 문의하세요." },
  security_locked: { title: "보안 설정 잠김", body: "화이트리스트, 주소록, 2단계 인증이 {days}일 동안, 베이징 시간 {time}까지 잠겼습니다." },
  security_address_added: { title: "출금 주소 추가됨", body: "{currency} 주소 {address}이(가) 주소록에 추가되었습니다." },
  security_address_removed: { title: "출금 주소 삭제됨", body: "{currency} 주소 {address}이(가) 주소록에서 삭제되었습니다." },
  price_alert_above: { title: "가격 알림: {pair} {level} 이상", body: "{pair}이(가) {price}에 거래되어 알림 가격 {level} 이상에 도달했습니다. 알림이 실행되어 종료되었습니다." },
  price_alert_below: { title: "가격 알림: {pair} {level} 이하", body: "{pair}이(가) {price}에 거래되어 알림 가격 {level} 이하에 도달했습니다. 알림이 실행되어 종료되었습니다." },
  price_alert_move: { title: "가격 알림: {pair} {move} % 변동", body: "{pair}이(가) {price}에 거래되어 최근 {hours}시간의 첫 가격 {from} 대비 {move} % 변동했습니다(알림: {percent} %). 알림이 실행되어 종료되었습니다." },
  apikey_created: { title: "새 API 키", body: "베이징 시간 {time}에 계정에서 API 키 “{label}”({scopes})이 만들어졌습니다. 본인이 아니라면 보안 → API 키에서 삭제하고 비밀번호를 변경하세요." },
};

const jp: Catalogue = {
  deposit_credited: { title: "入金が反映されました", body: "{amount} {currency} が現物口座に入金されました。" },
  deposit_rejected: { title: "入金が却下されました", body: "{amount} {currency} の入金は却下されました：{reason}" },
  withdrawal_sent: { title: "出金を送信しました", body: "{amount} {currency} を {network} で送信しました。トランザクションID：{txid}" },
  withdrawal_rejected: { title: "出金が却下されました", body: "{amount} {currency} の出金は却下され、資金は口座に戻りました：{reason}" },
  kyc_approved: { title: "本人確認が完了しました", body: "本人確認（レベル {level}）が承認されました。" },
  kyc_rejected: { title: "本人確認が却下されました", body: "本人確認（レベル {level}）は却下されました：{reason}" },
  c2c_new_order: { title: "新しいC2C注文", body: "広告に新しい注文 #{id}：{amount} {currency}、合計 {total} {fiat}。" },
  c2c_paid: { title: "買い手が支払い済みにしました", body: "注文 #{id}：買い手は {total} {fiat} を支払ったとしています。受取口座を確認してから {amount} {currency} を解放してください。" },
  c2c_released: { title: "コインが解放されました", body: "注文 #{id}：{amount} {currency} があなたの口座に解放されました。" },
  c2c_cancelled: { title: "C2C注文がキャンセルされました", body: "注文 #{id}（{amount} {currency}）はキャンセルされました。" },
  c2c_expired: { title: "C2C注文が期限切れになりました", body: "注文 #{id}（{amount} {currency}）は期限内に支払われず、キャンセルされました。" },
  c2c_appeal_opened: { title: "申し立てが開始されました", body: "注文 #{id} に申し立てがありました。オペレーターが審査します。" },
  c2c_appeal_decided: { title: "申し立ての結果", body: "注文 #{id} の申し立ての結果：{outcome}。" },
  seconds_settled: { title: "契約が決済されました：{outcome}", body: "{pair} {direction} #{id}：エントリー {entry}（ティック #{entry_tick}）、エグジット {exit}（ティック #{exit_tick}）。純損益 {net} {currency}。" },
  lever_closed: { title: "ポジションが決済されました：{reason}", body: "{pair} ポジション #{id} は {price} で決済されました。手数料差引後の純損益 {pnl} {currency}。" },
  login_new_device: { title: "新しい端末からのログイン", body: "北京時間 {time} に {device}（アドレス {ip}）からログインがありました。心当たりがない場合はすぐにパスワードを変更してください。" },
  support_reply: { title: "サポートから返信があります", body: "チケット #{id} に返信があります：{subject}" },
  invite_rebate: { title: "招待リベートが支払われました", body: "{day}（北京時間）の招待リベート：{amount} {currency}。招待したユーザーが実際に支払った手数料からの還元です。" },
  vote_held: { title: "投票の拘束を設定しました", body: "ラウンド「{title}」への投票のため、{amount} {currency} をラウンド終了まで現物アカウントで拘束します。資金はあなたのもので、このラウンドの投票すべてに拘束は1回だけです。" },
  vote_released: { title: "投票の拘束を解除しました", body: "ラウンド「{title}」は終了しました。投票のために拘束していた {amount} {currency} は現物アカウントで再び利用できます。" },
  insurance_bought: { title: "保険を購入しました", body: "保険 #{id}（{plan}）：{amount} {currency} を保険対象とし、保険料 {premium} {currency} を現物アカウントから支払いました。取引所は補償金 {cover} {currency} を確保しました。{day} 00:00 UTC から有効です。" },
  insurance_paid: { title: "保険金が支払われました", body: "保険 #{id}：{cover} {currency} が秒契約アカウントに支払われました。" },
  insurance_queued: { title: "請求は順番待ちです", body: "保険 #{id}：本日はすでに 2 回支払われたため、{cover} {currency} の請求は {day}（UTC）に支払われます。" },
  insurance_ended: { title: "保険が終了しました", body: "保険 #{id} は終了しました：秒契約アカウントが保険金額の +100% に達しました。今後の支払いはありません。" },
  insurance_expired: { title: "保険が満了しました", body: "保険 #{id} は請求なく満了しました。今後の支払いはありません。" },
  launch_committed: { title: "申込資金を預かりました", body: "{title}：{amount} {currency} をこのセールのため現物口座で凍結しました。期間終了まであなたの資産です。" },
  launch_allocated: { title: "ローンチ割当：{alloc} {token}", body: "{title}：{alloc} {token} が {cost} {currency} で割り当てられ、{refund} {currency} は現物口座に返金されました。トークンは公表されたスケジュールで解除されます。" },
  launch_refunded: { title: "申込資金を返金しました", body: "{title} は中止されました：{amount} {currency} が全額現物口座に戻りました。" },
  launch_claimed: { title: "解除済みトークンを受け取りました", body: "{title}：{amount} {token} が現物の利用可能残高に移りました。" },
  earn_subscribed: { title: "運用を申し込みました", body: "ポジション #{id}：{amount} {currency} を年利 {apr}% で現物口座に拘束しました。利息は予算から確保済みです。" },
  earn_interest: { title: "運用利息が支払われました", body: "ポジション #{id}：{day}（UTC）の利息 {amount} {currency} が現物口座に支払われました。" },
  earn_redeemed: { title: "運用を解約しました", body: "ポジション #{id}：{amount} {currency} が現物口座で再び利用可能になりました。" },
  earn_redeemed_early: { title: "運用を中途解約しました", body: "ポジション #{id}：{amount} {currency} が現物口座で再び利用可能になりました。申し込み時の説明どおり、発生済みの利息 {forfeited} {currency} は支払われません。" },
  earn_matured: { title: "運用が満期になりました", body: "ポジション #{id}：元本 {amount} {currency} と利息 {interest} {currency} が現物口座に支払われました。" },
  mining_bought: { title: "マイニング口数を購入しました", body: "購入 #{id}：{plan} を {shares} 口、{cost} {currency} で購入しました（現物アカウントから取引所へ支払い）。今から {days} 日間の各時間に計上されます。支払額はプールが実際に支払った額で、何も約束されません。" },
  mining_paid: { title: "マイニング支払い：{amount} {currency}", body: "{plan}、{hour}（UTC）の 1 時間：プールの支払額のうちあなたの {shares} 口分から手数料 {fee} {currency} を引いた額を現物アカウントに入金しました。" },
  spot_filled: { title: "注文が約定しました", body: "{pair} {side}注文 #{id}：{qty} が平均 {price} で約定しました。残りはありません。" },
  spot_partial: { title: "注文が一部約定しました", body: "{pair} {side}注文 #{id}：{qty} が平均 {price} で約定しました。" },
  spot_triggered: { title: "条件付き注文が発動しました", body: "{pair} 条件付き{side} #{id}：価格が {trigger} に達したため、{price} で {qty} の指値{side}注文を出しました。" },
  c2c_message: { title: "注文 #{id} に新しいメッセージ", body: "{text}" },
  security_passkey_added: { title: "パスキーを追加しました", body: "「{name}」という名前のパスキーがアカウントに追加されました。心当たりがない場合は、設定をロックしてサポートに連絡してください。" },
  security_passkey_removed: { title: "パスキーを削除しました", body: "パスキー「{name}」がアカウントから削除されました。" },
  security_anti_phishing: { title: "フィッシング対策コードを変更しました", body: "フィッシング対策コードが変更されました。当社からの正規のメールとSMSにはすべてこのコードが表示されます。" },
  security_whitelist_on: { title: "出金ホワイトリストを有効にしました", body: "出金はアドレス帳のアドレスにのみ送られます。新しいアドレスは追加から24時間後に使えます。" },
  security_whitelist_off: { title: "出金ホワイトリストを無効にしました", body: "どのアドレスにも出金できるようになりました。心当たりがない場合はすぐにサポートに連絡してください。" },
  security_locked: { title: "セキュリティ設定をロックしました", body: "ホワイトリスト、アドレス帳、二段階認証が {days} 日間、北京時間 {time} までロックされました。" },
  security_address_added: { title: "出金アドレスを追加しました", body: "{currency} のアドレス {address} がアドレス帳に追加されました。" },
  security_address_removed: { title: "出金アドレスを削除しました", body: "{currency} のアドレス {address} がアドレス帳から削除されました。" },
  price_alert_above: { title: "価格アラート：{pair} が {level} 以上", body: "{pair} が {price} で約定し、アラート価格 {level} 以上に達しました。アラートは発動して終了しました。" },
  price_alert_below: { title: "価格アラート：{pair} が {level} 以下", body: "{pair} が {price} で約定し、アラート価格 {level} 以下に達しました。アラートは発動して終了しました。" },
  price_alert_move: { title: "価格アラート：{pair} が {move} % 変動", body: "{pair} が {price} で約定し、直近 {hours} 時間の最初の価格 {from} から {move} % 変動しました（アラート：{percent} %）。アラートは発動して終了しました。" },
  apikey_created: { title: "新しい API キー", body: "北京時間 {time} にアカウントで API キー「{label}」（{scopes}）が作成されました。心当たりがない場合は、セキュリティ → API キーで削除し、パスワードを変更してください。" },
};

const es: Catalogue = {
  deposit_credited: { title: "Depósito acreditado", body: "Se han acreditado {amount} {currency} en su cuenta spot." },
  deposit_rejected: { title: "Depósito rechazado", body: "Su depósito de {amount} {currency} fue rechazado: {reason}" },
  withdrawal_sent: { title: "Retiro enviado", body: "Se enviaron {amount} {currency} por {network}. Id de transacción: {txid}" },
  withdrawal_rejected: { title: "Retiro rechazado", body: "Su retiro de {amount} {currency} fue rechazado y los fondos volvieron a su cuenta: {reason}" },
  kyc_approved: { title: "Identidad verificada", body: "Su verificación de identidad (nivel {level}) fue aprobada." },
  kyc_rejected: { title: "Verificación rechazada", body: "Su verificación de identidad (nivel {level}) fue rechazada: {reason}" },
  c2c_new_order: { title: "Nueva orden C2C", body: "Orden #{id} en su anuncio: {amount} {currency} por {total} {fiat}." },
  c2c_paid: { title: "El comprador marcó el pago", body: "Orden #{id}: el comprador dice haber pagado {total} {fiat}. Revise su cuenta de cobro y libere {amount} {currency}." },
  c2c_released: { title: "Monedas liberadas", body: "Orden #{id}: se liberaron {amount} {currency} a su cuenta." },
  c2c_cancelled: { title: "Orden C2C cancelada", body: "La orden #{id} ({amount} {currency}) fue cancelada." },
  c2c_expired: { title: "Orden C2C vencida", body: "La orden #{id} ({amount} {currency}) no se pagó a tiempo y fue cancelada." },
  c2c_appeal_opened: { title: "Apelación abierta", body: "Se abrió una apelación en la orden #{id}. Un operador la revisará." },
  c2c_appeal_decided: { title: "Apelación resuelta", body: "La apelación de la orden #{id} se resolvió: {outcome}." },
  seconds_settled: { title: "Contrato liquidado: {outcome}", body: "{pair} {direction} #{id}: entrada {entry} (tick #{entry_tick}), salida {exit} (tick #{exit_tick}). Neto {net} {currency}." },
  lever_closed: { title: "Posición cerrada: {reason}", body: "Posición {pair} #{id} cerrada a {price}. G/P neta tras comisiones {pnl} {currency}." },
  login_new_device: { title: "Inicio de sesión desde un nuevo dispositivo", body: "Se inició sesión en su cuenta a las {time} (hora de Pekín) desde {device}, dirección {ip}. Si no fue usted, cambie su contraseña ahora." },
  support_reply: { title: "Soporte respondió", body: "Hay una respuesta en su ticket #{id}: {subject}" },
  invite_rebate: { title: "Reembolso por invitación pagado", body: "Su reembolso por invitación del {day} (hora de Pekín): {amount} {currency}, de las comisiones que pagaron sus invitados." },
  vote_held: { title: "Retención por voto aplicada", body: "Por sus votos en la ronda \"{title}\", se retienen {amount} {currency} en su cuenta spot hasta que termine la ronda. Siguen siendo suyos; una sola retención cubre todos sus votos de esta ronda." },
  vote_released: { title: "Retención por voto liberada", body: "La ronda \"{title}\" ha terminado: los {amount} {currency} retenidos por sus votos vuelven a estar disponibles en su cuenta spot." },
  insurance_bought: { title: "Cobertura comprada", body: "Cobertura #{id} ({plan}): {amount} {currency} asegurados por una prima de {premium} {currency}, pagada desde su cuenta spot. La plataforma ha reservado la cobertura de {cover} {currency}. En vigor desde el {day} a las 00:00 UTC." },
  insurance_paid: { title: "Cobertura pagada", body: "Cobertura #{id}: se han pagado {cover} {currency} en su cuenta de segundos." },
  insurance_queued: { title: "Reclamación en cola", body: "Cobertura #{id}: hoy ya se hicieron dos pagos, así que su reclamación de {cover} {currency} se paga el {day} (UTC)." },
  insurance_ended: { title: "Cobertura terminada", body: "La cobertura #{id} terminó: su cuenta de segundos alcanzó +100 % del importe asegurado. Ya no paga nada más." },
  insurance_expired: { title: "Cobertura vencida", body: "La cobertura #{id} llegó a su fecha final sin reclamación. Ya no paga nada más." },
  launch_committed: { title: "Compromiso en depósito", body: "{title}: {amount} {currency} queda retenido en su cuenta spot para esta venta. Sigue siendo suyo hasta que termine la ventana." },
  launch_allocated: { title: "Asignación de lanzamiento: {alloc} {token}", body: "{title}: se le asignaron {alloc} {token} por {cost} {currency}; {refund} {currency} volvió a su cuenta spot. Los tokens se desbloquean según el calendario publicado." },
  launch_refunded: { title: "Compromiso reembolsado", body: "{title} se canceló: sus {amount} {currency} volvieron íntegros a su cuenta spot." },
  launch_claimed: { title: "Tokens desbloqueados reclamados", body: "{title}: {amount} {token} pasaron a su saldo spot disponible." },
  earn_subscribed: { title: "Ahorro suscrito", body: "Posición #{id}: {amount} {currency} queda retenido en su cuenta spot al {apr} % anual. Sus intereses se reservaron del presupuesto." },
  earn_interest: { title: "Intereses de ahorro pagados", body: "Posición #{id}: se pagaron {amount} {currency} de intereses del {day} (UTC) en su cuenta spot." },
  earn_redeemed: { title: "Ahorro rescatado", body: "Posición #{id}: {amount} {currency} vuelve a estar disponible en su cuenta spot." },
  earn_redeemed_early: { title: "Ahorro rescatado antes de plazo", body: "Posición #{id}: {amount} {currency} vuelve a estar disponible en su cuenta spot; los {forfeited} {currency} de intereses acumulados se perdieron, como se indicó al suscribir." },
  earn_matured: { title: "Ahorro vencido", body: "Posición #{id}: se pagaron en su cuenta spot {amount} {currency} de capital y {interest} {currency} de intereses." },
  mining_bought: { title: "Participaciones de minería compradas", body: "Compra #{id}: {shares} participaciones de {plan} por {cost} {currency}, pagadas desde su cuenta spot al exchange. Cuentan cada hora desde ahora durante {days} días; los pagos son lo que el pool pague de verdad, no se promete nada." },
  mining_paid: { title: "Pago de minería: {amount} {currency}", body: "{plan}, hora {hour} UTC: la parte de sus {shares} participaciones de lo que pagó el pool, menos la comisión de {fee} {currency}, se abonó en su cuenta spot." },
  spot_filled: { title: "Orden ejecutada", body: "Orden de {side} {pair} #{id}: {qty} ejecutado a un precio medio de {price}. No queda nada por ejecutar." },
  spot_partial: { title: "Orden ejecutada en parte", body: "Orden de {side} {pair} #{id}: {qty} ejecutado a un precio medio de {price}." },
  spot_triggered: { title: "Orden condicional activada", body: "{pair} {side} condicional #{id}: el precio llegó a {trigger}, así que se colocó una orden límite de {side} de {qty} a {price}." },
  c2c_message: { title: "Nuevo mensaje en la orden #{id}", body: "{text}" },
  security_passkey_added: { title: "Llave de acceso añadida", body: "Se añadió a su cuenta una llave de acceso llamada \"{name}\". Si no fue usted, bloquee los ajustes de su cuenta y contacte con soporte." },
  security_passkey_removed: { title: "Llave de acceso eliminada", body: "La llave de acceso \"{name}\" se eliminó de su cuenta." },
  security_anti_phishing: { title: "Código antiphishing cambiado", body: "Su código antiphishing cambió. Todo correo y SMS auténtico nuestro lo muestra." },
  security_whitelist_on: { title: "Lista blanca de retiros activada", body: "Los retiros solo van a direcciones de su libreta. Una dirección nueva se puede usar 24 horas después de añadirla." },
  security_whitelist_off: { title: "Lista blanca de retiros desactivada", body: "Los retiros pueden ir de nuevo a cualquier dirección. Si no fue usted, contacte con soporte ahora." },
  security_locked: { title: "Ajustes de seguridad bloqueados", body: "Su lista blanca, su libreta de direcciones y sus segundos factores quedan bloqueados {days} días, hasta las {time} (hora de Pekín)." },
  security_address_added: { title: "Dirección de retiro añadida", body: "La dirección {currency} {address} se añadió a su libreta." },
  security_address_removed: { title: "Dirección de retiro eliminada", body: "La dirección {currency} {address} se eliminó de su libreta." },
  price_alert_above: { title: "Alerta de precio: {pair} en {level} o más", body: "{pair} se negoció a {price}, en su nivel de alerta {level} o por encima. La alerta se ha activado y ha terminado." },
  price_alert_below: { title: "Alerta de precio: {pair} en {level} o menos", body: "{pair} se negoció a {price}, en su nivel de alerta {level} o por debajo. La alerta se ha activado y ha terminado." },
  price_alert_move: { title: "Alerta de precio: {pair} varió {move} %", body: "{pair} se negoció a {price}, {move} % frente a {from}, su primer precio en las últimas {hours} h (su alerta: {percent} %). La alerta se ha activado y ha terminado." },
  apikey_created: { title: "Nueva clave API", body: "Se creó la clave API «{label}» ({scopes}) en su cuenta a las {time} (hora de Pekín). Si no fue usted, elimínela en Seguridad → Claves API y cambie su contraseña." },
};

/** Words a param may name with "@word" (an outcome, a reason, a direction). */
const wordsEn = {
  won: "Won",
  lost: "Lost",
  up: "Up",
  down: "Down",
  user: "closed by you",
  profit: "take-profit",
  loss: "stop-loss",
  liquidation: "liquidation",
  cap: "gain cap reached",
  released: "coins released to the buyer",
  returned: "coins returned to the seller",
  buy: "buy",
  sell: "sell",
  image: "(a picture)",
};
type Words = Record<keyof typeof wordsEn, string>;
const WORDS: Record<Locale, Words> = {
  en: wordsEn,
  zh: { image: "[图片]", buy: "买", sell: "卖", won: "盈利", lost: "亏损", up: "看涨", down: "看跌", user: "手动平仓", profit: "止盈", loss: "止损", liquidation: "强制平仓", cap: "达到收益上限", released: "币已放行给买家", returned: "币已退回卖家" },
  hk: { image: "[圖片]", buy: "買", sell: "賣", won: "盈利", lost: "虧損", up: "看漲", down: "看跌", user: "手動平倉", profit: "止盈", loss: "止損", liquidation: "強制平倉", cap: "達到收益上限", released: "幣已放行給買家", returned: "幣已退回賣家" },
  kr: { image: "[사진]", buy: "매수", sell: "매도", won: "수익", lost: "손실", up: "상승", down: "하락", user: "직접 종료", profit: "이익 실현", loss: "손절", liquidation: "강제 청산", cap: "수익 상한 도달", released: "코인이 구매자에게 릴리스됨", returned: "코인이 판매자에게 반환됨" },
  jp: { image: "[画像]", buy: "買い", sell: "売り", won: "勝ち", lost: "負け", up: "上昇", down: "下落", user: "手動決済", profit: "利益確定", loss: "損切り", liquidation: "強制決済", cap: "利益上限に到達", released: "コインは買い手に解放", returned: "コインは売り手に返却" },
  es: { image: "(una imagen)", buy: "compra", sell: "venta", won: "ganado", lost: "perdido", up: "Sube", down: "Baja", user: "cerrada por usted", profit: "toma de ganancias", loss: "stop-loss", liquidation: "liquidación", cap: "tope de ganancia alcanzado", released: "monedas liberadas al comprador", returned: "monedas devueltas al vendedor" },
};

const CATALOGUES: Record<Locale, Catalogue> = { en, zh, hk, kr, jp, es };

export type NotificationParams = Record<string, string | number>;

function fill(template: string, params: NotificationParams, words: Words): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const v = params[name];
    if (v === undefined) return "";
    const s = String(v);
    // "@@..." is a user's own text that starts with "@" (escaped by the writer, e.g. a chat quote).
    if (s.startsWith("@@")) return s.slice(1);
    if (s.startsWith("@")) return (words as Record<string, string>)[s.slice(1)] ?? s.slice(1);
    return s;
  });
}

/** The title and body of one notification in `locale` (an unknown kind reads as English text of nothing). */
export function renderNotification(kind: string, params: NotificationParams, locale: Locale): { title: string; body: string } {
  const text = (CATALOGUES[locale] as Record<string, Text | undefined>)[kind] ?? (en as Record<string, Text | undefined>)[kind];
  if (!text) return { title: kind, body: "" };
  const words = WORDS[locale];
  return { title: fill(text.title, params, words), body: fill(text.body, params, words) };
}
