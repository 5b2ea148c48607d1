// News, help articles and notices in the six languages (en, zh, hk, kr, jp, es). The same `slug`
// joins the translations of one article. Facts stated here must stay true of the product:
// fees from the published table, real prices only, no withdrawal "unlock" payments of any kind.

/** @typedef {{ title: string, content: string }} Text */
/** @typedef {{ slug: string, category: "news"|"help"|"notice", cover: [string, string, string], banner?: number, t: Record<"en"|"zh"|"hk"|"kr"|"jp"|"es", Text> }} Article */

/** @type {Article[]} */
export const articles = [
  // ───────────────────────────── news ─────────────────────────────
  {
    slug: "welcome-real-prices",
    category: "news",
    cover: ["chart", "#0B3D91", "#1FA2FF"],
    banner: 3,
    t: {
      en: {
        title: "Welcome: an exchange that shows you real prices",
        content:
          "<p>Every price on this exchange comes from an order that really traded on our books. We do not smooth, nudge or animate prices to make a market look busier than it is. A pair that has not traded yet shows 0, not an invented number.</p>" +
          "<ul><li>Spot trading against USDT with market and limit orders and a public order book.</li>" +
          "<li>C2C trading with merchants.</li>" +
          "<li>Seconds contracts and leveraged contracts where they are allowed. Please read the risk warnings before you use them.</li></ul>" +
          "<p>Your balance is kept in an append-only ledger. Staff cannot edit it; any correction needs a second operator's approval and is recorded in an audit log.</p>" +
          "<p>Withdrawing your money never requires a tax, a turnover target, a VIP fee or an extra deposit. If anyone asks you for one in our name, it is a scam.</p>",
      },
      zh: {
        title: "欢迎：一个只显示真实价格的交易所",
        content:
          "<p>本交易所显示的每一个价格都来自在我们订单簿上真实成交的订单。我们不会为了让市场看起来更活跃而平滑、微调或制造价格跳动。尚未成交的交易对显示为 0，而不是编造的数字。</p>" +
          "<ul><li>以 USDT 计价的币币交易，支持市价单、限价单和公开的订单簿。</li>" +
          "<li>与商家进行的法币（C2C）交易。</li>" +
          "<li>在法律允许的地区提供秒合约和杠杆合约。使用前请先阅读风险提示。</li></ul>" +
          "<p>您的余额记录在只可追加的账本中。工作人员无法修改余额；任何更正都需要第二位操作员批准，并记录在审计日志中。</p>" +
          "<p>提取您的资金永远不需要缴纳税费、完成流水要求、支付 VIP 费用或追加充值。如果有人以我们的名义向您索取这些费用，那就是诈骗。</p>",
      },
      hk: {
        title: "歡迎：一個只顯示真實價格的交易所",
        content:
          "<p>本交易所顯示的每一個價格都來自在我們訂單簿上真實成交的訂單。我們不會為了讓市場看起來更活躍而平滑、微調或製造價格跳動。尚未成交的交易對顯示為 0，而不是編造的數字。</p>" +
          "<ul><li>以 USDT 計價的幣幣交易，支援市價單、限價單和公開的訂單簿。</li>" +
          "<li>與商家進行的法幣（C2C）交易。</li>" +
          "<li>在法律允許的地區提供秒合約和槓桿合約。使用前請先閱讀風險提示。</li></ul>" +
          "<p>您的餘額記錄在只可追加的帳本中。工作人員無法修改餘額；任何更正都需要第二位操作員批准，並記錄在審計日誌中。</p>" +
          "<p>提取您的資金永遠不需要繳納稅費、完成流水要求、支付 VIP 費用或追加充值。如果有人以我們的名義向您索取這些費用，那就是詐騙。</p>",
      },
      kr: {
        title: "환영합니다: 실제 가격만 보여 주는 거래소",
        content:
          "<p>이 거래소에 표시되는 모든 가격은 저희 호가창에서 실제로 체결된 주문에서 나옵니다. 시장이 더 활발해 보이도록 가격을 다듬거나 움직이지 않습니다. 아직 거래가 없는 거래쌍은 지어낸 숫자가 아니라 0으로 표시됩니다.</p>" +
          "<ul><li>USDT 마켓 현물 거래: 시장가·지정가 주문과 공개 호가창.</li>" +
          "<li>판매자와의 C2C 거래.</li>" +
          "<li>허용되는 지역에서는 초 단위 계약과 레버리지 계약. 이용 전에 위험 고지를 꼭 읽어 주세요.</li></ul>" +
          "<p>잔액은 추가만 가능한 원장에 기록됩니다. 직원은 잔액을 수정할 수 없으며, 모든 정정은 두 번째 운영자의 승인이 필요하고 감사 로그에 남습니다.</p>" +
          "<p>출금할 때 세금, 거래량 조건, VIP 수수료, 추가 입금은 절대 필요하지 않습니다. 누군가 저희 이름으로 이런 돈을 요구한다면 사기입니다.</p>",
      },
      jp: {
        title: "ようこそ：本当の価格だけを表示する取引所です",
        content:
          "<p>当取引所に表示される価格はすべて、当社の板で実際に約定した注文に基づいています。市場を活発に見せるために価格をならしたり、動かしたりすることはありません。まだ約定のない取引ペアは、作られた数字ではなく 0 と表示されます。</p>" +
          "<ul><li>USDT 建ての現物取引（成行・指値注文、公開された板）。</li>" +
          "<li>加盟店との C2C 取引。</li>" +
          "<li>認められている地域では秒単位契約とレバレッジ取引。ご利用の前にリスクに関する注意をお読みください。</li></ul>" +
          "<p>残高は追記のみ可能な台帳で管理されます。スタッフは残高を編集できず、訂正には別のオペレーターの承認が必要で、監査ログに記録されます。</p>" +
          "<p>出金に税金、取引量の条件、VIP 料金、追加入金が必要になることは決してありません。当社の名前でそのような支払いを求められた場合は詐欺です。</p>",
      },
      es: {
        title: "Bienvenido: un exchange que le muestra precios reales",
        content:
          "<p>Cada precio de este exchange procede de una orden que se ejecutó de verdad en nuestros libros. No suavizamos, empujamos ni animamos los precios para que un mercado parezca más activo. Un par que aún no ha negociado muestra 0, no un número inventado.</p>" +
          "<ul><li>Trading al contado contra USDT con órdenes de mercado y limitadas y un libro de órdenes público.</li>" +
          "<li>Trading C2C con comerciantes.</li>" +
          "<li>Contratos por segundos y contratos apalancados donde estén permitidos. Lea las advertencias de riesgo antes de usarlos.</li></ul>" +
          "<p>Su saldo se guarda en un libro contable de solo anotación. El personal no puede editarlo; cualquier corrección necesita la aprobación de un segundo operador y queda registrada en un registro de auditoría.</p>" +
          "<p>Retirar su dinero nunca exige un impuesto, un volumen mínimo de operaciones, una cuota VIP ni un depósito adicional. Si alguien se lo pide en nuestro nombre, es una estafa.</p>",
      },
    },
  },
  {
    slug: "fee-schedule",
    category: "news",
    cover: ["coins", "#0F5132", "#2ECC71"],
    banner: 2,
    t: {
      en: {
        title: "Our fees, all in one place",
        content:
          "<p>We charge only the fees listed here, and each one is shown before you confirm.</p>" +
          "<ul><li><b>Spot trading:</b> 0.10% of the trade value for both maker and taker orders on every listed pair. The order form shows the rate of the pair.</li>" +
          "<li><b>Seconds contracts:</b> 2% of the stake per order, shown together with the payout ratio before you confirm.</li>" +
          "<li><b>Withdrawals:</b> a fixed fee per currency and network from our published table, shown on the withdrawal form with the amount you will receive.</li>" +
          "<li><b>Deposits:</b> free on our side. The blockchain network charges its own fee to the sender.</li></ul>" +
          "<p>There is no fee on profit, no minimum trading volume before you can withdraw, and no charge to unlock or speed up a withdrawal. Fee changes are announced in a notice at least 14 days before they apply.</p>",
      },
      zh: {
        title: "我们的费用，一目了然",
        content:
          "<p>我们只收取下列费用，每一项都会在您确认之前显示。</p>" +
          "<ul><li><b>币币交易：</b>所有上线交易对的挂单和吃单手续费均为成交额的 0.10%。下单页面会显示该交易对的费率。</li>" +
          "<li><b>秒合约：</b>每笔订单收取投入金额的 2%，会在您确认前与收益率一同显示。</li>" +
          "<li><b>提币：</b>按币种和网络收取固定手续费，费率见公开费率表，提币页面会同时显示您实际到账的金额。</li>" +
          "<li><b>充值：</b>我们不收费。区块链网络会向发送方收取其自身的网络费用。</li></ul>" +
          "<p>我们不对利润收费，提币前没有最低交易量要求，也不会收取任何“解冻”或“加急”提币的费用。费用如有调整，会至少提前 14 天发布公告。</p>",
      },
      hk: {
        title: "我們的費用，一目了然",
        content:
          "<p>我們只收取下列費用，每一項都會在您確認之前顯示。</p>" +
          "<ul><li><b>幣幣交易：</b>所有上線交易對的掛單和吃單手續費均為成交額的 0.10%。下單頁面會顯示該交易對的費率。</li>" +
          "<li><b>秒合約：</b>每筆訂單收取投入金額的 2%，會在您確認前與收益率一同顯示。</li>" +
          "<li><b>提幣：</b>按幣種和網絡收取固定手續費，費率見公開費率表，提幣頁面會同時顯示您實際到帳的金額。</li>" +
          "<li><b>充值：</b>我們不收費。區塊鏈網絡會向發送方收取其自身的網絡費用。</li></ul>" +
          "<p>我們不對利潤收費，提幣前沒有最低交易量要求，也不會收取任何「解凍」或「加急」提幣的費用。費用如有調整，會至少提前 14 天發布公告。</p>",
      },
      kr: {
        title: "수수료를 한곳에 모두 공개합니다",
        content:
          "<p>저희는 아래에 적힌 수수료만 받으며, 모든 수수료는 확인 전에 표시됩니다.</p>" +
          "<ul><li><b>현물 거래:</b> 상장된 모든 거래쌍에서 메이커·테이커 주문 모두 거래 금액의 0.10%. 주문 화면에 해당 거래쌍의 요율이 표시됩니다.</li>" +
          "<li><b>초 단위 계약:</b> 주문당 투자 금액의 2%. 확인 전에 수익률과 함께 표시됩니다.</li>" +
          "<li><b>출금:</b> 공개된 요금표에 따른 코인·네트워크별 고정 수수료. 출금 화면에 실제 수령액과 함께 표시됩니다.</li>" +
          "<li><b>입금:</b> 저희 쪽 수수료는 없습니다. 블록체인 네트워크 수수료는 보내는 사람이 부담합니다.</li></ul>" +
          "<p>수익에 대한 수수료, 출금 전 최소 거래량 조건, 출금 '잠금 해제'나 '빠른 처리' 비용은 없습니다. 수수료가 바뀌면 적용 최소 14일 전에 공지합니다.</p>",
      },
      jp: {
        title: "手数料のすべてをここにまとめました",
        content:
          "<p>当社がいただく手数料は以下のものだけで、いずれも確定前に表示されます。</p>" +
          "<ul><li><b>現物取引：</b>すべての上場ペアでメイカー・テイカーともに約定金額の 0.10%。注文画面にペアごとの料率が表示されます。</li>" +
          "<li><b>秒単位契約：</b>1 注文につき賭け金の 2%。確定前に配当率と一緒に表示されます。</li>" +
          "<li><b>出金：</b>公開している料金表に基づく通貨・ネットワーク別の固定手数料。出金画面に受取額と一緒に表示されます。</li>" +
          "<li><b>入金：</b>当社の手数料は無料です。ブロックチェーンのネットワーク手数料は送金者の負担です。</li></ul>" +
          "<p>利益に対する手数料、出金前の最低取引量、出金の「ロック解除」や「優先処理」のための料金は一切ありません。手数料を変更する場合は、適用の 14 日以上前にお知らせします。</p>",
      },
      es: {
        title: "Nuestras comisiones, todas en un solo lugar",
        content:
          "<p>Solo cobramos las comisiones que figuran aquí, y cada una se muestra antes de que confirme.</p>" +
          "<ul><li><b>Trading al contado:</b> 0,10 % del valor de la operación, tanto para órdenes maker como taker, en todos los pares listados. El formulario de la orden muestra la tarifa del par.</li>" +
          "<li><b>Contratos por segundos:</b> 2 % del importe apostado por orden, mostrado junto con el porcentaje de pago antes de confirmar.</li>" +
          "<li><b>Retiros:</b> una comisión fija por moneda y red según nuestra tabla publicada, mostrada en el formulario junto con el importe que recibirá.</li>" +
          "<li><b>Depósitos:</b> gratuitos por nuestra parte. La red blockchain cobra su propia comisión al remitente.</li></ul>" +
          "<p>No hay comisión sobre beneficios, ni volumen mínimo de operaciones para poder retirar, ni cargos por desbloquear o acelerar un retiro. Cualquier cambio de comisiones se anuncia con al menos 14 días de antelación.</p>",
      },
    },
  },
  {
    slug: "seconds-price-log",
    category: "news",
    cover: ["clock", "#4A148C", "#8E44AD"],
    banner: 1,
    t: {
      en: {
        title: "Seconds contracts settle from a public price log",
        content:
          "<p>When you open a seconds contract we record the entry price: the reference price at the moment your order is accepted. When the time runs out we take the exit price: the last reference tick at or before expiry. Both ticks are stored with your order and the tick log is public, so anyone can check a settlement.</p>" +
          "<p>The rule is fixed and shown before you buy: an <b>up</b> order wins if the exit price is higher than the entry price; a <b>down</b> order wins if the exit price is lower than or equal to the entry price.</p>" +
          "<p>No setting, operator or stake size can choose an outcome. The 2% fee and the payout ratio of each duration are shown before you confirm. A losing order loses its whole stake, so please read the risk warning first.</p>",
      },
      zh: {
        title: "秒合约按公开的价格记录结算",
        content:
          "<p>您开立秒合约时，我们记录开仓价：即订单被接受那一刻的参考价格。到期时，我们取平仓价：即到期时刻或之前的最后一个参考价格点。两个价格点都与您的订单一起保存，价格记录是公开的，任何人都可以核对结算结果。</p>" +
          "<p>规则固定不变，并在购买前显示：<b>看涨</b>订单在平仓价高于开仓价时获胜；<b>看跌</b>订单在平仓价低于或等于开仓价时获胜。</p>" +
          "<p>任何设置、操作员或投入金额都无法决定结果。2% 的手续费和各时长的收益率会在您确认前显示。亏损的订单会损失全部投入金额，请先阅读风险提示。</p>",
      },
      hk: {
        title: "秒合約按公開的價格記錄結算",
        content:
          "<p>您開立秒合約時，我們記錄開倉價：即訂單被接受那一刻的參考價格。到期時，我們取平倉價：即到期時刻或之前的最後一個參考價格點。兩個價格點都與您的訂單一起保存，價格記錄是公開的，任何人都可以核對結算結果。</p>" +
          "<p>規則固定不變，並在購買前顯示：<b>看漲</b>訂單在平倉價高於開倉價時獲勝；<b>看跌</b>訂單在平倉價低於或等於開倉價時獲勝。</p>" +
          "<p>任何設定、操作員或投入金額都無法決定結果。2% 的手續費和各時長的收益率會在您確認前顯示。虧損的訂單會損失全部投入金額，請先閱讀風險提示。</p>",
      },
      kr: {
        title: "초 단위 계약은 공개된 가격 기록으로 정산됩니다",
        content:
          "<p>초 단위 계약을 열면 진입 가격, 즉 주문이 접수된 순간의 기준 가격을 기록합니다. 시간이 끝나면 종료 가격, 즉 만기 시점 또는 그 직전의 마지막 기준 가격을 사용합니다. 두 가격은 주문과 함께 저장되고 가격 기록은 공개되어 누구나 정산을 확인할 수 있습니다.</p>" +
          "<p>규칙은 고정되어 있으며 구매 전에 표시됩니다. <b>상승</b> 주문은 종료 가격이 진입 가격보다 높을 때 이기고, <b>하락</b> 주문은 종료 가격이 진입 가격보다 낮거나 같을 때 이깁니다.</p>" +
          "<p>어떤 설정, 운영자, 투자 금액도 결과를 정할 수 없습니다. 2% 수수료와 기간별 수익률은 확인 전에 표시됩니다. 진 주문은 투자 금액 전부를 잃으니 먼저 위험 고지를 읽어 주세요.</p>",
      },
      jp: {
        title: "秒単位契約は公開された価格記録で決済されます",
        content:
          "<p>秒単位契約を開始すると、エントリー価格（注文が受け付けられた瞬間の参照価格）を記録します。時間が終了すると、エグジット価格（満期時点またはその直前の最後の参照価格）を使います。どちらの価格も注文とともに保存され、価格記録は公開されているので、誰でも決済を確認できます。</p>" +
          "<p>ルールは固定で、購入前に表示されます。<b>上昇</b>注文はエグジット価格がエントリー価格より高いときに勝ち、<b>下落</b>注文はエグジット価格がエントリー価格以下のときに勝ちます。</p>" +
          "<p>設定、オペレーター、賭け金の大きさによって結果が選ばれることはありません。2% の手数料と期間ごとの配当率は確定前に表示されます。負けた注文は賭け金をすべて失いますので、先にリスクに関する注意をお読みください。</p>",
      },
      es: {
        title: "Los contratos por segundos se liquidan con un registro público de precios",
        content:
          "<p>Cuando abre un contrato por segundos registramos el precio de entrada: el precio de referencia en el momento en que se acepta su orden. Cuando se acaba el tiempo tomamos el precio de salida: el último tick de referencia en el vencimiento o antes. Ambos ticks se guardan con su orden y el registro de ticks es público, así que cualquiera puede comprobar una liquidación.</p>" +
          "<p>La regla es fija y se muestra antes de comprar: una orden <b>al alza</b> gana si el precio de salida es mayor que el de entrada; una orden <b>a la baja</b> gana si el precio de salida es menor o igual que el de entrada.</p>" +
          "<p>Ningún ajuste, operador ni tamaño de apuesta puede elegir un resultado. La comisión del 2 % y el porcentaje de pago de cada duración se muestran antes de confirmar. Una orden perdedora pierde todo el importe apostado: lea primero la advertencia de riesgo.</p>",
      },
    },
  },
  {
    slug: "product-availability",
    category: "news",
    cover: ["globe", "#004D40", "#26A69A"],
    t: {
      en: {
        title: "Which products are available where you live",
        content:
          "<p>Seconds contracts and leveraged contracts are restricted or prohibited for retail customers in a number of countries. Each of these products can be switched off for a deployment of this exchange, and a product that is off is hidden from the app: you will not be offered something you are not allowed to use.</p>" +
          "<p>Spot trading, deposits and withdrawals are not affected by these switches.</p>" +
          "<p>Please do not use tools that hide your location to reach a product that is not offered where you live. If you are unsure what applies to you, ask customer service.</p>",
      },
      zh: {
        title: "您所在地区可使用哪些产品",
        content:
          "<p>秒合约和杠杆合约在许多国家对零售客户受到限制或被禁止。这些产品在每个部署中都可以单独关闭，关闭后的产品会从应用中隐藏：我们不会向您提供您无权使用的产品。</p>" +
          "<p>币币交易、充值和提币不受这些开关影响。</p>" +
          "<p>请不要使用隐藏所在地的工具去使用您所在地区未提供的产品。如不确定适用哪些规定，请咨询客服。</p>",
      },
      hk: {
        title: "您所在地區可使用哪些產品",
        content:
          "<p>秒合約和槓桿合約在許多國家對零售客戶受到限制或被禁止。這些產品在每個部署中都可以單獨關閉，關閉後的產品會從應用程式中隱藏：我們不會向您提供您無權使用的產品。</p>" +
          "<p>幣幣交易、充值和提幣不受這些開關影響。</p>" +
          "<p>請不要使用隱藏所在地的工具去使用您所在地區未提供的產品。如不確定適用哪些規定，請諮詢客服。</p>",
      },
      kr: {
        title: "거주 지역에서 이용할 수 있는 상품",
        content:
          "<p>초 단위 계약과 레버리지 계약은 여러 나라에서 개인 고객에게 제한되거나 금지되어 있습니다. 이 상품들은 거래소 배포마다 따로 끌 수 있으며, 꺼진 상품은 앱에서 숨겨집니다. 이용이 허용되지 않은 상품을 권하지 않습니다.</p>" +
          "<p>현물 거래, 입금, 출금은 이 설정의 영향을 받지 않습니다.</p>" +
          "<p>거주 지역에서 제공되지 않는 상품을 이용하기 위해 위치를 숨기는 도구를 사용하지 마세요. 어떤 규정이 적용되는지 모르겠다면 고객센터에 문의해 주세요.</p>",
      },
      jp: {
        title: "お住まいの地域で利用できる商品",
        content:
          "<p>秒単位契約とレバレッジ取引は、多くの国で個人のお客様に対して制限または禁止されています。これらの商品は取引所の運用環境ごとに停止でき、停止中の商品はアプリに表示されません。利用が認められていない商品をご案内することはありません。</p>" +
          "<p>現物取引、入金、出金はこの設定の影響を受けません。</p>" +
          "<p>お住まいの地域で提供されていない商品を利用するために、位置を隠すツールを使わないでください。どの規則が適用されるか分からない場合は、カスタマーサービスにお問い合わせください。</p>",
      },
      es: {
        title: "Qué productos están disponibles donde usted vive",
        content:
          "<p>Los contratos por segundos y los contratos apalancados están restringidos o prohibidos para clientes minoristas en varios países. Cada uno de estos productos se puede desactivar en cada despliegue del exchange, y un producto desactivado se oculta en la aplicación: no le ofreceremos algo que no pueda usar.</p>" +
          "<p>El trading al contado, los depósitos y los retiros no se ven afectados por estos ajustes.</p>" +
          "<p>No utilice herramientas que oculten su ubicación para acceder a un producto que no se ofrece donde vive. Si no está seguro de qué se le aplica, consulte al servicio de atención al cliente.</p>",
      },
    },
  },

  // ───────────────────────────── help ─────────────────────────────
  {
    slug: "how-to-deposit",
    category: "help",
    cover: ["deposit", "#0D47A1", "#42A5F5"],
    t: {
      en: {
        title: "How to deposit",
        content:
          "<ol><li>Open <b>Assets</b> and choose <b>Deposit</b>.</li>" +
          "<li>Choose the coin and, for USDT, the network. Send only that coin over that network to the address shown: coins sent over another network may be lost.</li>" +
          "<li>Enter the amount and the transaction hash, and attach a screenshot if you have one, so that the deposit can be matched quickly.</li>" +
          "<li>Follow the progress in <b>Deposit records</b>. A deposit is credited after 1 network confirmation.</li></ol>" +
          "<p>Supported coins: BTC, ETH, USDT, XRP, LTC and BCH. We do not charge for deposits.</p>",
      },
      zh: {
        title: "如何充值",
        content:
          "<ol><li>打开<b>资产</b>，选择<b>充值</b>。</li>" +
          "<li>选择币种；如果是 USDT，还需选择网络。只能通过该网络向显示的地址发送该币种，通过其他网络发送的币可能会丢失。</li>" +
          "<li>填写金额和交易哈希，如有截图也请上传，以便尽快匹配您的充值。</li>" +
          "<li>在<b>充值记录</b>中查看进度。充值在获得 1 个网络确认后到账。</li></ol>" +
          "<p>支持的币种：BTC、ETH、USDT、XRP、LTC 和 BCH。我们不收取充值费用。</p>",
      },
      hk: {
        title: "如何充值",
        content:
          "<ol><li>打開<b>資產</b>，選擇<b>充值</b>。</li>" +
          "<li>選擇幣種；如果是 USDT，還需選擇網絡。只能透過該網絡向顯示的地址發送該幣種，透過其他網絡發送的幣可能會遺失。</li>" +
          "<li>填寫金額和交易哈希，如有截圖也請上傳，以便盡快配對您的充值。</li>" +
          "<li>在<b>充值記錄</b>中查看進度。充值在獲得 1 個網絡確認後到帳。</li></ol>" +
          "<p>支援的幣種：BTC、ETH、USDT、XRP、LTC 和 BCH。我們不收取充值費用。</p>",
      },
      kr: {
        title: "입금 방법",
        content:
          "<ol><li><b>자산</b>을 열고 <b>입금</b>을 선택합니다.</li>" +
          "<li>코인을 고르고, USDT라면 네트워크도 고릅니다. 표시된 주소로 해당 네트워크를 통해 해당 코인만 보내세요. 다른 네트워크로 보낸 코인은 잃을 수 있습니다.</li>" +
          "<li>금액과 거래 해시를 입력하고, 스크린샷이 있으면 첨부해 주세요. 입금을 빨리 확인하는 데 도움이 됩니다.</li>" +
          "<li><b>입금 기록</b>에서 진행 상황을 확인합니다. 입금은 네트워크 확인 1회 후 반영됩니다.</li></ol>" +
          "<p>지원 코인: BTC, ETH, USDT, XRP, LTC, BCH. 입금 수수료는 받지 않습니다.</p>",
      },
      jp: {
        title: "入金の方法",
        content:
          "<ol><li><b>資産</b>を開き、<b>入金</b>を選びます。</li>" +
          "<li>通貨を選び、USDT の場合はネットワークも選びます。表示されたアドレスへ、そのネットワークでその通貨だけを送ってください。別のネットワークで送った通貨は失われることがあります。</li>" +
          "<li>金額とトランザクションハッシュを入力し、スクリーンショットがあれば添付してください。入金の照合が早くなります。</li>" +
          "<li><b>入金履歴</b>で進み具合を確認できます。入金はネットワーク承認 1 回の後に反映されます。</li></ol>" +
          "<p>対応通貨：BTC、ETH、USDT、XRP、LTC、BCH。入金手数料はいただきません。</p>",
      },
      es: {
        title: "Cómo depositar",
        content:
          "<ol><li>Abra <b>Activos</b> y elija <b>Depositar</b>.</li>" +
          "<li>Elija la moneda y, para USDT, la red. Envíe solo esa moneda por esa red a la dirección mostrada: las monedas enviadas por otra red pueden perderse.</li>" +
          "<li>Introduzca el importe y el hash de la transacción, y adjunte una captura si la tiene, para poder identificar el depósito rápidamente.</li>" +
          "<li>Siga el progreso en <b>Registro de depósitos</b>. Un depósito se abona tras 1 confirmación de la red.</li></ol>" +
          "<p>Monedas admitidas: BTC, ETH, USDT, XRP, LTC y BCH. No cobramos por los depósitos.</p>",
      },
    },
  },
  {
    slug: "identity-verification",
    category: "help",
    cover: ["id", "#37474F", "#78909C"],
    t: {
      en: {
        title: "Identity verification: what you need",
        content:
          "<p>An approved identity verification is needed to trade and to use C2C. Prepare:</p>" +
          "<ul><li>Your real name exactly as on the document (no digits).</li>" +
          "<li>The document type (ID card, driver's licence or passport) and its number.</li>" +
          "<li>Clear photos of the front and the back of the document, in JPG or PNG, at most 4 MB each.</li></ul>" +
          "<p>The status goes from <i>not submitted</i> to <i>under review</i> to <i>approved</i>. If a review is rejected we tell you the reason and you can submit again.</p>" +
          "<p>Verification is free. Nobody from our team will ever ask you to pay for it or to send documents outside the app.</p>",
      },
      zh: {
        title: "实名认证：需要准备什么",
        content:
          "<p>通过实名认证后才能进行交易和使用法币（C2C）交易。请准备：</p>" +
          "<ul><li>与证件完全一致的真实姓名（不能包含数字）。</li>" +
          "<li>证件类型（身份证、驾驶证或护照）及证件号码。</li>" +
          "<li>证件正面和背面的清晰照片，JPG 或 PNG 格式，每张不超过 4 MB。</li></ul>" +
          "<p>认证状态依次为<i>未提交</i>、<i>审核中</i>、<i>已通过</i>。如果审核被拒绝，我们会告诉您原因，您可以重新提交。</p>" +
          "<p>认证完全免费。我们的工作人员绝不会要求您为认证付费，也不会要求您在应用之外发送证件。</p>",
      },
      hk: {
        title: "實名認證：需要準備甚麼",
        content:
          "<p>通過實名認證後才能進行交易和使用法幣（C2C）交易。請準備：</p>" +
          "<ul><li>與證件完全一致的真實姓名（不能包含數字）。</li>" +
          "<li>證件類型（身份證、駕駛執照或護照）及證件號碼。</li>" +
          "<li>證件正面和背面的清晰照片，JPG 或 PNG 格式，每張不超過 4 MB。</li></ul>" +
          "<p>認證狀態依次為<i>未提交</i>、<i>審核中</i>、<i>已通過</i>。如果審核被拒絕，我們會告訴您原因，您可以重新提交。</p>" +
          "<p>認證完全免費。我們的工作人員絕不會要求您為認證付費，也不會要求您在應用程式之外發送證件。</p>",
      },
      kr: {
        title: "본인 인증: 준비할 것",
        content:
          "<p>거래와 C2C를 이용하려면 본인 인증 승인이 필요합니다. 다음을 준비해 주세요.</p>" +
          "<ul><li>신분증에 적힌 그대로의 실명(숫자 불가).</li>" +
          "<li>신분증 종류(신분증, 운전면허증 또는 여권)와 번호.</li>" +
          "<li>신분증 앞면과 뒷면의 선명한 사진. JPG 또는 PNG, 장당 최대 4 MB.</li></ul>" +
          "<p>상태는 <i>미제출</i>, <i>심사 중</i>, <i>승인</i> 순으로 바뀝니다. 심사가 거절되면 사유를 알려 드리며 다시 제출할 수 있습니다.</p>" +
          "<p>인증은 무료입니다. 저희 직원은 인증 비용을 요구하거나 앱 밖으로 서류를 보내 달라고 하지 않습니다.</p>",
      },
      jp: {
        title: "本人確認：必要なもの",
        content:
          "<p>取引と C2C の利用には、本人確認の承認が必要です。次のものをご用意ください。</p>" +
          "<ul><li>書類に記載されているとおりの氏名（数字は使えません）。</li>" +
          "<li>書類の種類（身分証明書、運転免許証、パスポート）とその番号。</li>" +
          "<li>書類の表面と裏面の鮮明な写真。JPG または PNG、各 4 MB 以内。</li></ul>" +
          "<p>状態は<i>未提出</i>、<i>審査中</i>、<i>承認済み</i>の順に変わります。審査が却下された場合は理由をお知らせしますので、再提出できます。</p>" +
          "<p>本人確認は無料です。当社のスタッフが費用を求めたり、アプリ以外で書類を送るよう求めたりすることはありません。</p>",
      },
      es: {
        title: "Verificación de identidad: qué necesita",
        content:
          "<p>Para operar y usar C2C necesita una verificación de identidad aprobada. Prepare:</p>" +
          "<ul><li>Su nombre real exactamente como figura en el documento (sin dígitos).</li>" +
          "<li>El tipo de documento (documento de identidad, permiso de conducir o pasaporte) y su número.</li>" +
          "<li>Fotos nítidas del anverso y del reverso del documento, en JPG o PNG, de 4 MB como máximo cada una.</li></ul>" +
          "<p>El estado pasa de <i>no enviado</i> a <i>en revisión</i> y a <i>aprobado</i>. Si se rechaza una revisión le indicamos el motivo y puede enviarla de nuevo.</p>" +
          "<p>La verificación es gratuita. Nadie de nuestro equipo le pedirá nunca que pague por ella ni que envíe documentos fuera de la aplicación.</p>",
      },
    },
  },
  {
    slug: "account-security",
    category: "help",
    cover: ["lock", "#B71C1C", "#EF5350"],
    t: {
      en: {
        title: "Keeping your account safe",
        content:
          "<ul><li>Use a password of 8 to 64 characters that mixes letters and digits and that you use nowhere else.</li>" +
          "<li>Never share your password, fund password or verification codes. Our staff will never ask for them.</li>" +
          "<li>Contact support only through the customer-service link inside the app.</li>" +
          "<li>Check the address bar before you log in, and open the site from a bookmark.</li>" +
          "<li>Log out when you use a shared device.</li>" +
          "<li>Anyone who promises guaranteed profits, or asks you to pay a fee to release a withdrawal, is a scammer.</li></ul>",
      },
      zh: {
        title: "保护好您的账户",
        content:
          "<ul><li>使用 8 到 64 位、同时包含字母和数字、且没有在其他地方用过的密码。</li>" +
          "<li>不要把登录密码、资金密码或验证码告诉任何人。我们的工作人员绝不会索取这些信息。</li>" +
          "<li>只通过应用内的客服入口联系我们。</li>" +
          "<li>登录前检查地址栏，并通过书签打开网站。</li>" +
          "<li>在公用设备上使用后请退出登录。</li>" +
          "<li>任何承诺保证盈利、或要求您付费才能放行提币的人都是骗子。</li></ul>",
      },
      hk: {
        title: "保護好您的帳戶",
        content:
          "<ul><li>使用 8 到 64 位、同時包含字母和數字、且沒有在其他地方用過的密碼。</li>" +
          "<li>不要把登入密碼、資金密碼或驗證碼告訴任何人。我們的工作人員絕不會索取這些資料。</li>" +
          "<li>只透過應用程式內的客服入口聯絡我們。</li>" +
          "<li>登入前檢查網址列，並透過書籤開啟網站。</li>" +
          "<li>在公用裝置上使用後請登出。</li>" +
          "<li>任何承諾保證盈利、或要求您付費才能放行提幣的人都是騙子。</li></ul>",
      },
      kr: {
        title: "계정을 안전하게 지키는 방법",
        content:
          "<ul><li>영문과 숫자를 섞은 8~64자의 비밀번호를 쓰고, 다른 곳에서는 쓰지 마세요.</li>" +
          "<li>비밀번호, 자금 비밀번호, 인증 코드는 누구에게도 알려 주지 마세요. 저희 직원은 절대 요구하지 않습니다.</li>" +
          "<li>고객센터는 앱 안의 고객센터 링크로만 연락하세요.</li>" +
          "<li>로그인 전에 주소창을 확인하고, 북마크로 사이트를 여세요.</li>" +
          "<li>공용 기기에서는 사용 후 로그아웃하세요.</li>" +
          "<li>확실한 수익을 약속하거나 출금을 풀어 주는 대가로 돈을 요구하는 사람은 사기꾼입니다.</li></ul>",
      },
      jp: {
        title: "アカウントを安全に保つために",
        content:
          "<ul><li>英字と数字を組み合わせた 8〜64 文字の、ほかでは使っていないパスワードを使ってください。</li>" +
          "<li>パスワード、資金パスワード、認証コードは誰にも教えないでください。当社のスタッフが尋ねることはありません。</li>" +
          "<li>お問い合わせはアプリ内のカスタマーサービスのリンクからのみ行ってください。</li>" +
          "<li>ログインの前にアドレスバーを確認し、ブックマークからサイトを開いてください。</li>" +
          "<li>共用の端末ではご利用後にログアウトしてください。</li>" +
          "<li>確実な利益を約束する人や、出金を解除するための支払いを求める人は詐欺師です。</li></ul>",
      },
      es: {
        title: "Cómo mantener segura su cuenta",
        content:
          "<ul><li>Use una contraseña de 8 a 64 caracteres que combine letras y dígitos y que no use en ningún otro sitio.</li>" +
          "<li>No comparta nunca su contraseña, su contraseña de fondos ni sus códigos de verificación. Nuestro personal nunca se los pedirá.</li>" +
          "<li>Contacte con soporte solo a través del enlace de atención al cliente de la aplicación.</li>" +
          "<li>Compruebe la barra de direcciones antes de iniciar sesión y abra el sitio desde un marcador.</li>" +
          "<li>Cierre la sesión cuando use un dispositivo compartido.</li>" +
          "<li>Quien le prometa beneficios garantizados o le pida pagar para liberar un retiro es un estafador.</li></ul>",
      },
    },
  },
  {
    slug: "how-to-withdraw",
    category: "help",
    cover: ["withdraw", "#E65100", "#FFA726"],
    t: {
      en: {
        title: "How to withdraw",
        content:
          "<ol><li>Open <b>Assets</b> and choose <b>Withdraw</b>.</li>" +
          "<li>Paste the address (without spaces) and, for USDT, choose the network: ERC20 or TRC20. Check the address twice: blockchain transfers cannot be reversed.</li>" +
          "<li>Enter the amount. The fee from our published table and the amount you will receive are shown before you submit.</li>" +
          "<li>Confirm the withdrawal.</li></ol>" +
          "<p>Withdrawals are reviewed and then sent, and are final after 2 or 6 network confirmations depending on the coin. You can follow every step in <b>Withdrawal records</b>. We never ask for an extra payment to release a withdrawal.</p>",
      },
      zh: {
        title: "如何提币",
        content:
          "<ol><li>打开<b>资产</b>，选择<b>提币</b>。</li>" +
          "<li>粘贴地址（不能有空格）；如果是 USDT，还需选择网络：ERC20 或 TRC20。请仔细核对地址：区块链转账无法撤回。</li>" +
          "<li>填写数量。提交前会显示公开费率表中的手续费以及您实际到账的金额。</li>" +
          "<li>确认提币。</li></ol>" +
          "<p>提币经审核后发出，根据币种在 2 或 6 个网络确认后最终完成。您可以在<b>提币记录</b>中查看每一步。我们绝不会要求您额外付款来放行提币。</p>",
      },
      hk: {
        title: "如何提幣",
        content:
          "<ol><li>打開<b>資產</b>，選擇<b>提幣</b>。</li>" +
          "<li>貼上地址（不能有空格）；如果是 USDT，還需選擇網絡：ERC20 或 TRC20。請仔細核對地址：區塊鏈轉帳無法撤回。</li>" +
          "<li>填寫數量。提交前會顯示公開費率表中的手續費以及您實際到帳的金額。</li>" +
          "<li>確認提幣。</li></ol>" +
          "<p>提幣經審核後發出，根據幣種在 2 或 6 個網絡確認後最終完成。您可以在<b>提幣記錄</b>中查看每一步。我們絕不會要求您額外付款來放行提幣。</p>",
      },
      kr: {
        title: "출금 방법",
        content:
          "<ol><li><b>자산</b>을 열고 <b>출금</b>을 선택합니다.</li>" +
          "<li>주소를 붙여 넣고(공백 없이), USDT라면 네트워크(ERC20 또는 TRC20)를 고릅니다. 블록체인 송금은 되돌릴 수 없으니 주소를 두 번 확인하세요.</li>" +
          "<li>금액을 입력합니다. 제출 전에 공개 요금표의 수수료와 실제 수령액이 표시됩니다.</li>" +
          "<li>출금을 확인합니다.</li></ol>" +
          "<p>출금은 심사 후 전송되며, 코인에 따라 네트워크 확인 2회 또는 6회 후 확정됩니다. 모든 단계는 <b>출금 기록</b>에서 확인할 수 있습니다. 출금을 풀어 주는 대가로 추가 비용을 요구하는 일은 절대 없습니다.</p>",
      },
      jp: {
        title: "出金の方法",
        content:
          "<ol><li><b>資産</b>を開き、<b>出金</b>を選びます。</li>" +
          "<li>アドレスを（空白なしで）貼り付け、USDT の場合はネットワーク（ERC20 または TRC20）を選びます。ブロックチェーンの送金は取り消せないので、アドレスは 2 回確認してください。</li>" +
          "<li>金額を入力します。送信前に、公開料金表の手数料と受取額が表示されます。</li>" +
          "<li>出金を確定します。</li></ol>" +
          "<p>出金は審査の後に送信され、通貨に応じてネットワーク承認 2 回または 6 回で確定します。各段階は<b>出金履歴</b>で確認できます。出金を解除するために追加の支払いを求めることは決してありません。</p>",
      },
      es: {
        title: "Cómo retirar",
        content:
          "<ol><li>Abra <b>Activos</b> y elija <b>Retirar</b>.</li>" +
          "<li>Pegue la dirección (sin espacios) y, para USDT, elija la red: ERC20 o TRC20. Compruebe la dirección dos veces: las transferencias en blockchain no se pueden revertir.</li>" +
          "<li>Introduzca el importe. Antes de enviar se muestran la comisión de nuestra tabla publicada y el importe que recibirá.</li>" +
          "<li>Confirme el retiro.</li></ol>" +
          "<p>Los retiros se revisan y después se envían, y son definitivos tras 2 o 6 confirmaciones de la red según la moneda. Puede seguir cada paso en <b>Registro de retiros</b>. Nunca le pediremos un pago adicional para liberar un retiro.</p>",
      },
    },
  },

  // ───────────────────────────── notices ─────────────────────────────
  {
    slug: "notice-risk-warning",
    category: "notice",
    cover: ["warning", "#BF360C", "#FF7043"],
    t: {
      en: {
        title: "Risk warning: only trade what you can afford to lose",
        content:
          "<p>Crypto-asset prices can move sharply within minutes. A seconds contract that goes the wrong way loses its whole stake, and a leveraged position can be closed at a loss when its margin runs out. Nothing on this site is investment advice.</p>",
      },
      zh: {
        title: "风险提示：只用您能承受损失的资金交易",
        content:
          "<p>数字资产价格可能在几分钟内剧烈波动。方向判断错误的秒合约会损失全部投入金额，杠杆仓位在保证金耗尽时可能被亏损平仓。本网站的任何内容都不构成投资建议。</p>",
      },
      hk: {
        title: "風險提示：只用您能承受損失的資金交易",
        content:
          "<p>數字資產價格可能在幾分鐘內劇烈波動。方向判斷錯誤的秒合約會損失全部投入金額，槓桿倉位在保證金耗盡時可能被虧損平倉。本網站的任何內容都不構成投資建議。</p>",
      },
      kr: {
        title: "위험 고지: 잃어도 되는 돈으로만 거래하세요",
        content:
          "<p>암호자산 가격은 몇 분 만에 크게 움직일 수 있습니다. 방향이 틀린 초 단위 계약은 투자 금액 전부를 잃고, 레버리지 포지션은 증거금이 바닥나면 손실로 청산될 수 있습니다. 이 사이트의 어떤 내용도 투자 조언이 아닙니다.</p>",
      },
      jp: {
        title: "リスクに関する注意：失っても困らない資金だけで取引してください",
        content:
          "<p>暗号資産の価格は数分のうちに大きく動くことがあります。予想が外れた秒単位契約は賭け金をすべて失い、レバレッジ取引のポジションは証拠金が尽きると損失で決済されることがあります。当サイトの内容は投資助言ではありません。</p>",
      },
      es: {
        title: "Advertencia de riesgo: opere solo con lo que pueda permitirse perder",
        content:
          "<p>Los precios de los criptoactivos pueden moverse bruscamente en minutos. Un contrato por segundos que va en la dirección equivocada pierde todo el importe apostado, y una posición apalancada puede cerrarse con pérdidas cuando se agota su margen. Nada de este sitio es asesoramiento de inversión.</p>",
      },
    },
  },
  {
    slug: "notice-no-withdrawal-fees-to-unlock",
    category: "notice",
    cover: ["shield", "#1B5E20", "#66BB6A"],
    t: {
      en: {
        title: "We never ask for a payment to unlock a withdrawal",
        content:
          "<p>No tax on profit, no turnover requirement, no VIP fee and no extra deposit is ever needed to withdraw your balance. The only withdrawal cost is the network fee from our published table, shown before you submit. Messages asking for any other payment do not come from us: please report them through customer service.</p>",
      },
      zh: {
        title: "我们绝不会要求您付款来解冻提币",
        content:
          "<p>提取余额永远不需要缴纳利润税、完成流水要求、支付 VIP 费用或追加充值。提币唯一的费用是公开费率表中的网络手续费，并会在提交前显示。任何要求其他付款的消息都不是我们发出的，请通过客服举报。</p>",
      },
      hk: {
        title: "我們絕不會要求您付款來解凍提幣",
        content:
          "<p>提取餘額永遠不需要繳納利潤稅、完成流水要求、支付 VIP 費用或追加充值。提幣唯一的費用是公開費率表中的網絡手續費，並會在提交前顯示。任何要求其他付款的訊息都不是我們發出的，請透過客服舉報。</p>",
      },
      kr: {
        title: "출금을 풀어 주는 대가로 돈을 요구하지 않습니다",
        content:
          "<p>잔액을 출금할 때 수익세, 거래량 조건, VIP 수수료, 추가 입금은 절대 필요하지 않습니다. 출금 비용은 공개 요금표의 네트워크 수수료뿐이며 제출 전에 표시됩니다. 다른 돈을 요구하는 메시지는 저희가 보낸 것이 아니니 고객센터로 신고해 주세요.</p>",
      },
      jp: {
        title: "出金のロック解除のために支払いを求めることはありません",
        content:
          "<p>残高の出金に、利益への税金、取引量の条件、VIP 料金、追加入金が必要になることは決してありません。出金にかかる費用は公開料金表のネットワーク手数料だけで、送信前に表示されます。それ以外の支払いを求めるメッセージは当社からのものではありませんので、カスタマーサービスにご報告ください。</p>",
      },
      es: {
        title: "Nunca pedimos un pago para desbloquear un retiro",
        content:
          "<p>Para retirar su saldo nunca se necesita un impuesto sobre beneficios, un volumen mínimo de operaciones, una cuota VIP ni un depósito adicional. El único coste de un retiro es la comisión de red de nuestra tabla publicada, que se muestra antes de enviar. Los mensajes que pidan cualquier otro pago no proceden de nosotros: denúncielos a través de atención al cliente.</p>",
      },
    },
  },
  {
    slug: "notice-c2c-payment-window",
    category: "notice",
    cover: ["people", "#01579B", "#29B6F6"],
    t: {
      en: {
        title: "C2C orders: a 15-minute payment window",
        content:
          "<p>After you place a C2C buy order you have 15 minutes to pay the merchant and confirm with proof of payment; an unpaid order is then cancelled automatically. Three cancellations in one day pause your C2C trading for the rest of that day. Sellers: never confirm receipt before the money has actually arrived in your account.</p>",
      },
      zh: {
        title: "法币（C2C）订单：15 分钟付款时限",
        content:
          "<p>下单购买后，您有 15 分钟向商家付款并上传付款凭证确认；超时未付款的订单会被自动取消。一天内取消三次，当天剩余时间将暂停您的法币交易。卖家请注意：在款项真正到账之前，切勿确认收款。</p>",
      },
      hk: {
        title: "法幣（C2C）訂單：15 分鐘付款時限",
        content:
          "<p>下單購買後，您有 15 分鐘向商家付款並上傳付款憑證確認；逾時未付款的訂單會被自動取消。一天內取消三次，當天餘下時間將暫停您的法幣交易。賣家請注意：在款項真正到帳之前，切勿確認收款。</p>",
      },
      kr: {
        title: "C2C 주문: 15분 결제 시간",
        content:
          "<p>C2C 매수 주문을 넣은 뒤 15분 안에 판매자에게 송금하고 결제 증빙으로 확인해야 하며, 결제하지 않은 주문은 자동으로 취소됩니다. 하루에 세 번 취소하면 그날 남은 시간 동안 C2C 거래가 중지됩니다. 판매자는 돈이 실제로 계좌에 들어오기 전에는 절대 수령 확인을 하지 마세요.</p>",
      },
      jp: {
        title: "C2C 注文：お支払いの期限は 15 分です",
        content:
          "<p>C2C の購入注文を出したら、15 分以内に加盟店へ支払い、支払い証明で確認してください。支払いのない注文は自動的にキャンセルされます。1 日に 3 回キャンセルすると、その日の残りの時間は C2C 取引が停止されます。売り手の方は、代金が実際に口座に届くまで受取確認をしないでください。</p>",
      },
      es: {
        title: "Órdenes C2C: un plazo de pago de 15 minutos",
        content:
          "<p>Después de crear una orden de compra C2C tiene 15 minutos para pagar al comerciante y confirmarlo con el comprobante de pago; después, una orden no pagada se cancela automáticamente. Tres cancelaciones en un día pausan su trading C2C durante el resto de ese día. Vendedores: no confirmen nunca la recepción antes de que el dinero haya llegado de verdad a su cuenta.</p>",
      },
    },
  },
];
