// The user agreement served by GET /api/new/home/agreement, in the six languages. Plain rules:
// published fees only, no profit "tax", no turnover gate, no wash-trading fine, no VIP reservation,
// risk warnings for seconds contracts and leverage, products switched per jurisdiction.

const sections = (list) => list.map(([h, body]) => `<h3>${h}</h3>${body}`).join("");
const p = (s) => `<p>${s}</p>`;
const ul = (items) => `<ul>${items.map((i) => `<li>${i}</li>`).join("")}</ul>`;

/** @type {Record<"en"|"zh"|"hk"|"kr"|"jp"|"es", { title: string, content: string }>} */
export const agreements = {
  en: {
    title: "User Agreement",
    content: sections([
      [
        "1. About this agreement",
        p("This agreement sets out the rules for using this exchange (the \"platform\"). By registering you accept it. It is written to be read: if any part is unclear, ask customer service before you trade."),
      ],
      [
        "2. Your account",
        ul([
          "You must be an adult who may lawfully use crypto-asset services where you live.",
          "One person, one account. Keep your details accurate and up to date.",
          "Identity verification is required to trade and to use C2C. We use your documents only to verify you and to meet our legal duties.",
          "Keep your password, fund password and verification codes secret. Our staff will never ask for them.",
        ]),
      ],
      [
        "3. Products and where they are offered",
        p("The platform offers spot trading against USDT, C2C trading with merchants, seconds contracts and leveraged contracts. Seconds contracts and leverage are restricted or prohibited for retail customers in some jurisdictions. Each product can be switched off for a jurisdiction, and a product that is switched off is not shown. Do not try to reach a product that is not offered where you live."),
      ],
      [
        "4. Fees",
        p("We charge only the fees in our published fee table, and every fee is shown before you confirm:") +
          ul([
            "Spot trades: the maker and taker rate of the pair (currently 0.10%).",
            "Seconds contracts: 2% of the stake per order.",
            "Withdrawals: a fixed fee per currency and network.",
          ]) +
          p("We do not charge any tax or fee on your profit. We do not require any trading volume (\"turnover\") before you may sell, transfer or withdraw. We do not charge any VIP, reservation, unlocking or deposit fee to release a withdrawal. Fee changes are announced at least 14 days in advance and never apply to orders already placed."),
      ],
      [
        "5. Prices and settlement",
        p("Every price we display comes from trades executed on our order books or from the configured reference price feed. We never alter displayed prices. Seconds contracts settle on recorded reference prices: the entry price is the price when your order is accepted and the exit price is the last recorded tick at or before expiry. An \"up\" order wins if the exit price is above the entry price; a \"down\" order wins if the exit price is equal to or below it. Both prices are stored with your order and the price log is public. No person, setting or stake size can change the outcome of an order."),
      ],
      [
        "6. Risk warning",
        ul([
          "Crypto-asset prices are volatile and you can lose money.",
          "A seconds contract is a fixed-payout position on the price direction over a short time. If the price moves against you, you lose the whole stake, and over many orders the fee works against you.",
          "Leverage multiplies gains and losses. A leveraged position can be closed automatically when its margin is used up, and you can lose the entire margin.",
          "Only use money you can afford to lose. Nothing on the platform is investment advice.",
        ]),
      ],
      [
        "7. Deposits and withdrawals",
        p("Deposits are credited after the published number of network confirmations. Send only the supported coin over the selected network: funds sent to a wrong address or network may be unrecoverable. Withdrawals may be reviewed for security and legal reasons. If a withdrawal is delayed or refused we tell you why, and we never ask for a payment to release it."),
      ],
      [
        "8. C2C trading",
        p("In a C2C trade you pay the merchant directly. A buyer has 15 minutes to pay and upload proof of payment; an unpaid order is then cancelled. Three cancellations in one day pause C2C trading for that day. The coins of an order are held by the platform until the order is finished or cancelled. Sellers must confirm receipt only after the money has arrived."),
      ],
      [
        "9. Your balance and our operators",
        p("Balances are recorded in an append-only ledger. Operators cannot edit balances. Every operator action, such as approving a deposit, a withdrawal or an identity verification, is recorded with the operator and the reason, and a balance correction needs the approval of a second operator."),
      ],
      [
        "10. Fair use",
        p("Fraud, money laundering, market manipulation and using other people's accounts or payment methods are prohibited. If we find them we may cancel the related open orders, restrict the account and report to the authorities as the law requires. We do not impose fines or multiplied trading requirements on your balance, and holding opposite positions at the same time is not penalised."),
      ],
      [
        "11. Closing your account",
        p("You may stop using the platform at any time and withdraw your balance, paying only the published withdrawal fee."),
      ],
      [
        "12. Changes and contact",
        p("We announce changes to this agreement in a notice before they take effect. For questions and complaints, use the customer-service link in the app."),
      ],
    ]),
  },

  zh: {
    title: "用户协议",
    content: sections([
      ["一、关于本协议", p("本协议规定了使用本交易所（“平台”）的规则。注册即表示您接受本协议。本协议力求清楚易懂：如有任何不明白的地方，请在交易前咨询客服。")],
      [
        "二、您的账户",
        ul([
          "您必须是成年人，并且依照您所在地的法律可以使用数字资产服务。",
          "一人一个账户。请保持您的资料准确并及时更新。",
          "进行交易和使用法币（C2C）交易需要完成实名认证。我们只将您的证件用于身份核验和履行法定义务。",
          "请妥善保管您的登录密码、资金密码和验证码。我们的工作人员绝不会索取这些信息。",
        ]),
      ],
      ["三、产品及其提供地区", p("平台提供以 USDT 计价的币币交易、与商家进行的法币（C2C）交易、秒合约和杠杆合约。秒合约和杠杆在部分司法辖区对零售客户受到限制或被禁止。每项产品都可以针对某一司法辖区关闭，关闭后的产品不会显示。请不要设法使用您所在地未提供的产品。")],
      [
        "四、费用",
        p("我们只收取公开费率表中列明的费用，每项费用都会在您确认前显示：") +
          ul(["币币交易：该交易对的挂单和吃单费率（目前为 0.10%）。", "秒合约：每笔订单收取投入金额的 2%。", "提币：按币种和网络收取固定手续费。"]) +
          p("我们不对您的利润收取任何税费或费用。卖出、划转或提币前不需要完成任何交易量（“流水”）要求。我们不会为放行提币收取任何 VIP 费、预约费、解冻费或保证金。费用调整至少提前 14 天公告，且不适用于已下的订单。"),
      ],
      ["五、价格与结算", p("我们显示的每一个价格都来自在我们订单簿上成交的交易或所配置的参考价格源。我们绝不修改显示的价格。秒合约按记录的参考价格结算：开仓价为订单被接受时的价格，平仓价为到期时刻或之前最后记录的价格点。“看涨”订单在平仓价高于开仓价时获胜；“看跌”订单在平仓价等于或低于开仓价时获胜。两个价格都与您的订单一起保存，价格记录公开可查。任何人员、设置或投入金额都无法改变订单结果。")],
      [
        "六、风险提示",
        ul([
          "数字资产价格波动剧烈，您可能会亏损。",
          "秒合约是在短时间内对价格方向建立的固定收益头寸。如果价格走势与您的判断相反，您将损失全部投入金额；多次交易下来，手续费对您不利。",
          "杠杆会同时放大盈利和亏损。保证金耗尽时杠杆仓位可能被自动平仓，您可能损失全部保证金。",
          "请只使用您能承受损失的资金。平台上的任何内容都不构成投资建议。",
        ]),
      ],
      ["七、充值与提币", p("充值在达到公布的网络确认数后到账。请只通过所选网络发送受支持的币种：发送到错误地址或网络的资金可能无法找回。出于安全和法律原因，提币可能需要审核。如果提币被延迟或拒绝，我们会告诉您原因，并且绝不会要求您付款来放行。")],
      ["八、法币（C2C）交易", p("在法币交易中，您直接向商家付款。买方有 15 分钟付款并上传付款凭证，超时未付款的订单将被取消。一天内取消三次，当天将暂停法币交易。订单中的币由平台托管，直到订单完成或取消。卖方只能在款项到账后确认收款。")],
      ["九、您的余额与我们的操作员", p("余额记录在只可追加的账本中。操作员无法修改余额。每一项操作员行为（例如审核充值、提币或实名认证）都会连同操作员和原因一起记录；余额更正需要第二位操作员批准。")],
      ["十、合规使用", p("禁止欺诈、洗钱、操纵市场以及使用他人的账户或支付方式。一经发现，我们可能取消相关的未成交订单、限制账户，并依法向有关部门报告。我们不会对您的余额处以罚款或施加成倍的交易量要求，同时持有方向相反的仓位也不会受到处罚。")],
      ["十一、注销账户", p("您可以随时停止使用平台并提取余额，只需支付公开的提币手续费。")],
      ["十二、协议变更与联系方式", p("本协议如有变更，我们会在生效前发布公告。如有疑问或投诉，请使用应用内的客服入口。")],
    ]),
  },

  hk: {
    title: "用戶協議",
    content: sections([
      ["一、關於本協議", p("本協議規定了使用本交易所（「平台」）的規則。註冊即表示您接受本協議。本協議力求清楚易懂：如有任何不明白的地方，請在交易前諮詢客服。")],
      [
        "二、您的帳戶",
        ul([
          "您必須是成年人，並且依照您所在地的法律可以使用數字資產服務。",
          "一人一個帳戶。請保持您的資料準確並及時更新。",
          "進行交易和使用法幣（C2C）交易需要完成實名認證。我們只將您的證件用於身份核實和履行法定義務。",
          "請妥善保管您的登入密碼、資金密碼和驗證碼。我們的工作人員絕不會索取這些資料。",
        ]),
      ],
      ["三、產品及其提供地區", p("平台提供以 USDT 計價的幣幣交易、與商家進行的法幣（C2C）交易、秒合約和槓桿合約。秒合約和槓桿在部分司法管轄區對零售客戶受到限制或被禁止。每項產品都可以針對某一司法管轄區關閉，關閉後的產品不會顯示。請不要設法使用您所在地未提供的產品。")],
      [
        "四、費用",
        p("我們只收取公開費率表中列明的費用，每項費用都會在您確認前顯示：") +
          ul(["幣幣交易：該交易對的掛單和吃單費率（目前為 0.10%）。", "秒合約：每筆訂單收取投入金額的 2%。", "提幣：按幣種和網絡收取固定手續費。"]) +
          p("我們不對您的利潤收取任何稅費或費用。賣出、劃轉或提幣前不需要完成任何交易量（「流水」）要求。我們不會為放行提幣收取任何 VIP 費、預約費、解凍費或保證金。費用調整至少提前 14 天公告，且不適用於已下的訂單。"),
      ],
      ["五、價格與結算", p("我們顯示的每一個價格都來自在我們訂單簿上成交的交易或所配置的參考價格源。我們絕不修改顯示的價格。秒合約按記錄的參考價格結算：開倉價為訂單被接受時的價格，平倉價為到期時刻或之前最後記錄的價格點。「看漲」訂單在平倉價高於開倉價時獲勝；「看跌」訂單在平倉價等於或低於開倉價時獲勝。兩個價格都與您的訂單一起保存，價格記錄公開可查。任何人員、設定或投入金額都無法改變訂單結果。")],
      [
        "六、風險提示",
        ul([
          "數字資產價格波動劇烈，您可能會虧損。",
          "秒合約是在短時間內對價格方向建立的固定收益倉位。如果價格走勢與您的判斷相反，您將損失全部投入金額；多次交易下來，手續費對您不利。",
          "槓桿會同時放大盈利和虧損。保證金耗盡時槓桿倉位可能被自動平倉，您可能損失全部保證金。",
          "請只使用您能承受損失的資金。平台上的任何內容都不構成投資建議。",
        ]),
      ],
      ["七、充值與提幣", p("充值在達到公布的網絡確認數後到帳。請只透過所選網絡發送受支援的幣種：發送到錯誤地址或網絡的資金可能無法找回。基於安全和法律原因，提幣可能需要審核。如果提幣被延遲或拒絕，我們會告訴您原因，並且絕不會要求您付款來放行。")],
      ["八、法幣（C2C）交易", p("在法幣交易中，您直接向商家付款。買方有 15 分鐘付款並上傳付款憑證，逾時未付款的訂單將被取消。一天內取消三次，當天將暫停法幣交易。訂單中的幣由平台託管，直到訂單完成或取消。賣方只能在款項到帳後確認收款。")],
      ["九、您的餘額與我們的操作員", p("餘額記錄在只可追加的帳本中。操作員無法修改餘額。每一項操作員行為（例如審核充值、提幣或實名認證）都會連同操作員和原因一起記錄；餘額更正需要第二位操作員批准。")],
      ["十、合規使用", p("禁止欺詐、洗錢、操縱市場以及使用他人的帳戶或支付方式。一經發現，我們可能取消相關的未成交訂單、限制帳戶，並依法向有關部門報告。我們不會對您的餘額處以罰款或施加成倍的交易量要求，同時持有方向相反的倉位也不會受到處罰。")],
      ["十一、註銷帳戶", p("您可以隨時停止使用平台並提取餘額，只需支付公開的提幣手續費。")],
      ["十二、協議變更與聯絡方式", p("本協議如有變更，我們會在生效前發布公告。如有疑問或投訴，請使用應用程式內的客服入口。")],
    ]),
  },

  kr: {
    title: "이용약관",
    content: sections([
      ["1. 약관에 대하여", p("이 약관은 이 거래소(이하 \"플랫폼\")를 이용하는 규칙을 정합니다. 가입하면 이 약관에 동의하는 것입니다. 읽기 쉽게 쓰려고 했으니, 이해되지 않는 부분이 있으면 거래하기 전에 고객센터에 문의해 주세요.")],
      [
        "2. 계정",
        ul([
          "성인이어야 하며, 거주 지역의 법에 따라 암호자산 서비스를 이용할 수 있어야 합니다.",
          "한 사람당 한 계정입니다. 정보를 정확하게 최신 상태로 유지해 주세요.",
          "거래와 C2C 이용에는 본인 인증이 필요합니다. 제출한 서류는 본인 확인과 법적 의무 이행에만 사용합니다.",
          "비밀번호, 자금 비밀번호, 인증 코드를 비밀로 지켜 주세요. 저희 직원은 절대 요구하지 않습니다.",
        ]),
      ],
      ["3. 상품과 제공 지역", p("플랫폼은 USDT 마켓 현물 거래, 판매자와의 C2C 거래, 초 단위 계약, 레버리지 계약을 제공합니다. 초 단위 계약과 레버리지는 일부 관할 지역에서 개인 고객에게 제한되거나 금지되어 있습니다. 각 상품은 관할 지역별로 끌 수 있으며, 꺼진 상품은 표시되지 않습니다. 거주 지역에서 제공되지 않는 상품에 접근하려고 하지 마세요.")],
      [
        "4. 수수료",
        p("저희는 공개된 수수료표에 있는 수수료만 받으며, 모든 수수료는 확인 전에 표시됩니다.") +
          ul(["현물 거래: 거래쌍의 메이커·테이커 요율(현재 0.10%).", "초 단위 계약: 주문당 투자 금액의 2%.", "출금: 코인·네트워크별 고정 수수료."]) +
          p("수익에 대해 어떤 세금이나 수수료도 받지 않습니다. 매도, 이체, 출금 전에 거래량(\"롤링\") 조건을 요구하지 않습니다. 출금을 풀어 주는 대가로 VIP, 예약, 잠금 해제, 보증금 명목의 돈을 받지 않습니다. 수수료 변경은 최소 14일 전에 공지하며 이미 넣은 주문에는 적용하지 않습니다."),
      ],
      ["5. 가격과 정산", p("표시되는 모든 가격은 저희 호가창에서 체결된 거래 또는 설정된 기준 가격 피드에서 나옵니다. 표시 가격을 조작하지 않습니다. 초 단위 계약은 기록된 기준 가격으로 정산됩니다. 진입 가격은 주문이 접수된 때의 가격이고, 종료 가격은 만기 시점 또는 그 직전에 기록된 마지막 가격입니다. \"상승\" 주문은 종료 가격이 진입 가격보다 높으면 이기고, \"하락\" 주문은 종료 가격이 진입 가격과 같거나 낮으면 이깁니다. 두 가격은 주문과 함께 저장되고 가격 기록은 공개됩니다. 어떤 사람, 설정, 투자 금액도 주문 결과를 바꿀 수 없습니다.")],
      [
        "6. 위험 고지",
        ul([
          "암호자산 가격은 변동성이 크며 손실을 볼 수 있습니다.",
          "초 단위 계약은 짧은 시간 동안의 가격 방향에 대한 고정 수익 포지션입니다. 가격이 반대로 움직이면 투자 금액 전부를 잃으며, 주문을 거듭할수록 수수료는 불리하게 작용합니다.",
          "레버리지는 이익과 손실을 모두 키웁니다. 증거금이 소진되면 레버리지 포지션이 자동으로 청산될 수 있으며, 증거금 전부를 잃을 수 있습니다.",
          "잃어도 되는 돈만 사용하세요. 플랫폼의 어떤 내용도 투자 조언이 아닙니다.",
        ]),
      ],
      ["7. 입금과 출금", p("입금은 공개된 네트워크 확인 횟수가 지나면 반영됩니다. 선택한 네트워크로 지원되는 코인만 보내세요. 잘못된 주소나 네트워크로 보낸 자금은 되찾지 못할 수 있습니다. 출금은 보안과 법적 이유로 심사될 수 있습니다. 출금이 지연되거나 거절되면 이유를 알려 드리며, 출금을 풀어 주는 대가로 돈을 요구하지 않습니다.")],
      ["8. C2C 거래", p("C2C 거래에서는 판매자에게 직접 송금합니다. 구매자는 15분 안에 송금하고 결제 증빙을 올려야 하며, 결제하지 않은 주문은 취소됩니다. 하루에 세 번 취소하면 그날은 C2C 거래가 중지됩니다. 주문의 코인은 주문이 완료되거나 취소될 때까지 플랫폼이 보관합니다. 판매자는 돈이 도착한 뒤에만 수령을 확인해야 합니다.")],
      ["9. 잔액과 운영자", p("잔액은 추가만 가능한 원장에 기록됩니다. 운영자는 잔액을 수정할 수 없습니다. 입금, 출금, 본인 인증 승인 같은 모든 운영자 작업은 운영자와 사유와 함께 기록되며, 잔액 정정에는 두 번째 운영자의 승인이 필요합니다.")],
      ["10. 공정한 이용", p("사기, 자금 세탁, 시세 조종, 타인의 계정이나 결제 수단 사용은 금지됩니다. 발견되면 관련 미체결 주문을 취소하고 계정을 제한하며, 법이 요구하는 경우 당국에 신고할 수 있습니다. 잔액에 벌금이나 몇 배의 거래량 조건을 부과하지 않으며, 반대 방향 포지션을 동시에 보유해도 불이익은 없습니다.")],
      ["11. 계정 해지", p("언제든지 플랫폼 이용을 중단하고 공개된 출금 수수료만 내고 잔액을 출금할 수 있습니다.")],
      ["12. 변경과 문의", p("이 약관을 변경할 때는 시행 전에 공지합니다. 질문이나 불만은 앱의 고객센터 링크를 이용해 주세요.")],
    ]),
  },

  jp: {
    title: "利用規約",
    content: sections([
      ["1. 本規約について", p("本規約は、当取引所（以下「プラットフォーム」）を利用するためのルールを定めるものです。登録をもって本規約に同意したものとみなします。読んで分かるように書いていますので、分かりにくい点があれば取引の前にカスタマーサービスへお問い合わせください。")],
      [
        "2. アカウント",
        ul([
          "成人であり、お住まいの地域の法律上、暗号資産サービスを利用できる方に限ります。",
          "お一人につき 1 アカウントです。登録情報は正確かつ最新に保ってください。",
          "取引と C2C の利用には本人確認が必要です。ご提出の書類は本人確認と法令上の義務の履行にのみ使います。",
          "パスワード、資金パスワード、認証コードは秘密にしてください。当社のスタッフが尋ねることはありません。",
        ]),
      ],
      ["3. 商品と提供地域", p("プラットフォームは、USDT 建ての現物取引、加盟店との C2C 取引、秒単位契約、レバレッジ取引を提供します。秒単位契約とレバレッジは、一部の法域では個人のお客様に対して制限または禁止されています。各商品は法域ごとに停止でき、停止中の商品は表示されません。お住まいの地域で提供されていない商品を利用しようとしないでください。")],
      [
        "4. 手数料",
        p("当社がいただくのは公開している手数料表の手数料だけで、いずれも確定前に表示されます。") +
          ul(["現物取引：ペアごとのメイカー・テイカー料率（現在 0.10%）。", "秒単位契約：1 注文につき賭け金の 2%。", "出金：通貨・ネットワーク別の固定手数料。"]) +
          p("利益に対する税金や手数料は一切いただきません。売却、振替、出金の前に取引量（いわゆる「ターンオーバー」）の条件を課すことはありません。出金を解除するための VIP 料金、予約料、ロック解除料、保証金は一切いただきません。手数料の変更は 14 日以上前にお知らせし、すでに出された注文には適用しません。"),
      ],
      ["5. 価格と決済", p("表示する価格はすべて、当社の板で約定した取引、または設定された参照価格フィードに基づいています。表示価格を操作することはありません。秒単位契約は記録された参照価格で決済されます。エントリー価格は注文が受け付けられたときの価格、エグジット価格は満期時点またはその直前に記録された最後の価格です。「上昇」注文はエグジット価格がエントリー価格を上回れば勝ち、「下落」注文はエグジット価格がエントリー価格以下であれば勝ちます。どちらの価格も注文とともに保存され、価格記録は公開されています。人、設定、賭け金の大きさによって注文の結果が変わることはありません。")],
      [
        "6. リスクに関する注意",
        ul([
          "暗号資産の価格は変動が大きく、損失が出ることがあります。",
          "秒単位契約は、短い時間の価格の方向に対する固定配当のポジションです。価格が予想と逆に動くと賭け金をすべて失い、注文を重ねるほど手数料は不利に働きます。",
          "レバレッジは利益も損失も大きくします。証拠金が尽きるとレバレッジ取引のポジションは自動的に決済されることがあり、証拠金をすべて失う可能性があります。",
          "失っても困らない資金だけをお使いください。プラットフォーム上の内容は投資助言ではありません。",
        ]),
      ],
      ["7. 入金と出金", p("入金は、公表しているネットワーク承認回数の後に反映されます。選択したネットワークで対応通貨だけを送ってください。誤ったアドレスやネットワークに送った資金は取り戻せないことがあります。出金は、安全上および法令上の理由で審査されることがあります。出金が遅れたり拒否されたりした場合は理由をお知らせし、解除のための支払いを求めることは決してありません。")],
      ["8. C2C 取引", p("C2C 取引では、加盟店に直接お支払いいただきます。買い手は 15 分以内に支払い、支払い証明をアップロードしてください。支払いのない注文はキャンセルされます。1 日に 3 回キャンセルすると、その日は C2C 取引が停止されます。注文の通貨は、注文が完了またはキャンセルされるまでプラットフォームが保管します。売り手は、代金が届いてから受取確認をしてください。")],
      ["9. 残高とオペレーター", p("残高は追記のみ可能な台帳に記録されます。オペレーターは残高を編集できません。入金、出金、本人確認の承認など、オペレーターのすべての操作はオペレーターと理由とともに記録され、残高の訂正には別のオペレーターの承認が必要です。")],
      ["10. 公正な利用", p("詐欺、マネーロンダリング、相場操縦、他人のアカウントや決済手段の利用は禁止です。発見した場合、関連する未約定注文の取消、アカウントの制限、法令に基づく当局への報告を行うことがあります。残高に罰金を科したり、何倍もの取引量を条件にしたりすることはなく、反対方向のポジションを同時に持つことにも不利益はありません。")],
      ["11. アカウントの解約", p("いつでもプラットフォームの利用をやめ、公開している出金手数料だけを支払って残高を出金できます。")],
      ["12. 変更とお問い合わせ", p("本規約を変更する場合は、効力が生じる前にお知らせします。ご質問や苦情は、アプリ内のカスタマーサービスのリンクからご連絡ください。")],
    ]),
  },

  es: {
    title: "Acuerdo de usuario",
    content: sections([
      ["1. Sobre este acuerdo", p("Este acuerdo establece las reglas para usar este exchange (la \"plataforma\"). Al registrarse lo acepta. Está escrito para leerse: si alguna parte no está clara, pregunte al servicio de atención al cliente antes de operar.")],
      [
        "2. Su cuenta",
        ul([
          "Debe ser mayor de edad y poder usar legalmente servicios de criptoactivos donde vive.",
          "Una persona, una cuenta. Mantenga sus datos exactos y actualizados.",
          "Para operar y usar C2C se requiere la verificación de identidad. Usamos sus documentos solo para verificarle y cumplir nuestras obligaciones legales.",
          "Mantenga en secreto su contraseña, su contraseña de fondos y sus códigos de verificación. Nuestro personal nunca se los pedirá.",
        ]),
      ],
      ["3. Productos y dónde se ofrecen", p("La plataforma ofrece trading al contado contra USDT, trading C2C con comerciantes, contratos por segundos y contratos apalancados. Los contratos por segundos y el apalancamiento están restringidos o prohibidos para clientes minoristas en algunas jurisdicciones. Cada producto se puede desactivar para una jurisdicción, y un producto desactivado no se muestra. No intente acceder a un producto que no se ofrece donde vive.")],
      [
        "4. Comisiones",
        p("Solo cobramos las comisiones de nuestra tabla publicada, y cada comisión se muestra antes de que confirme:") +
          ul(["Operaciones al contado: la tarifa maker y taker del par (actualmente 0,10 %).", "Contratos por segundos: 2 % del importe apostado por orden.", "Retiros: una comisión fija por moneda y red."]) +
          p("No cobramos ningún impuesto ni comisión sobre sus beneficios. No exigimos ningún volumen de operaciones (\"rotación\") antes de que pueda vender, transferir o retirar. No cobramos ninguna cuota VIP, de reserva, de desbloqueo ni depósito para liberar un retiro. Los cambios de comisiones se anuncian con al menos 14 días de antelación y nunca se aplican a órdenes ya creadas."),
      ],
      ["5. Precios y liquidación", p("Cada precio que mostramos procede de operaciones ejecutadas en nuestros libros de órdenes o de la fuente de precios de referencia configurada. Nunca alteramos los precios mostrados. Los contratos por segundos se liquidan con precios de referencia registrados: el precio de entrada es el precio cuando se acepta su orden y el precio de salida es el último tick registrado en el vencimiento o antes. Una orden \"al alza\" gana si el precio de salida es superior al de entrada; una orden \"a la baja\" gana si el precio de salida es igual o inferior. Ambos precios se guardan con su orden y el registro de precios es público. Ninguna persona, ajuste ni tamaño de apuesta puede cambiar el resultado de una orden.")],
      [
        "6. Advertencia de riesgo",
        ul([
          "Los precios de los criptoactivos son volátiles y puede perder dinero.",
          "Un contrato por segundos es una posición de pago fijo sobre la dirección del precio en poco tiempo. Si el precio va en su contra, pierde todo el importe apostado, y a lo largo de muchas órdenes la comisión juega en su contra.",
          "El apalancamiento multiplica las ganancias y las pérdidas. Una posición apalancada puede cerrarse automáticamente cuando se agota su margen, y puede perder todo el margen.",
          "Use solo dinero que pueda permitirse perder. Nada en la plataforma es asesoramiento de inversión.",
        ]),
      ],
      ["7. Depósitos y retiros", p("Los depósitos se abonan tras el número publicado de confirmaciones de la red. Envíe solo la moneda admitida por la red seleccionada: los fondos enviados a una dirección o red equivocada pueden ser irrecuperables. Los retiros pueden revisarse por motivos de seguridad y legales. Si un retiro se retrasa o se rechaza le decimos por qué, y nunca le pedimos un pago para liberarlo.")],
      ["8. Trading C2C", p("En una operación C2C usted paga directamente al comerciante. El comprador tiene 15 minutos para pagar y subir el comprobante de pago; después, una orden no pagada se cancela. Tres cancelaciones en un día pausan el trading C2C durante ese día. Las monedas de una orden las retiene la plataforma hasta que la orden finaliza o se cancela. Los vendedores deben confirmar la recepción solo cuando el dinero haya llegado.")],
      ["9. Su saldo y nuestros operadores", p("Los saldos se registran en un libro contable de solo anotación. Los operadores no pueden editar saldos. Cada acción de un operador, como aprobar un depósito, un retiro o una verificación de identidad, se registra con el operador y el motivo, y una corrección de saldo necesita la aprobación de un segundo operador.")],
      ["10. Uso correcto", p("Están prohibidos el fraude, el blanqueo de capitales, la manipulación del mercado y el uso de cuentas o medios de pago de otras personas. Si los detectamos podemos cancelar las órdenes abiertas relacionadas, restringir la cuenta e informar a las autoridades según exija la ley. No imponemos multas ni requisitos de operaciones multiplicados sobre su saldo, y mantener posiciones opuestas al mismo tiempo no se penaliza.")],
      ["11. Cierre de su cuenta", p("Puede dejar de usar la plataforma en cualquier momento y retirar su saldo pagando solo la comisión de retiro publicada.")],
      ["12. Cambios y contacto", p("Anunciamos los cambios de este acuerdo en un aviso antes de que entren en vigor. Para preguntas y reclamaciones, use el enlace de atención al cliente de la aplicación.")],
    ]),
  },
};
