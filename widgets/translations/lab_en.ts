<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="zh_CN">
<context>
    <name>lab</name>
    <message>
        <location filename="strings_en.py" line="5"/>
        <source>%1 步/s · %2%</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="6"/>
        <source>%1×%2 = %3 个 patch → %4×%5 = %6 个视觉 token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="7"/>
        <source>(%1/卡 × %2 卡)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="8"/>
        <source>(t) = A(t) − P(t):已到达的可播放时长 − 已播放时长。播放期间 P(t) 每秒涨 %1 秒,A(t) 随数据块跳跃增长;余量降到零而下一块没到,声音就断。</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="9"/>
        <source>,需重算</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="10"/>
        <source>:只换问题时,KV 保留</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="11"/>
        <source>;EC 只取决于图片,</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="12"/>
        <source>A %1 ms: 首播 %2 ms, 停顿 %3 次 %4 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="13"/>
        <source>A · KV 池占用</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="14"/>
        <source>A · 均匀混合 %1:%2 · 等待队列与运行序列</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="15"/>
        <source>A · 每个请求 (Gantt)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="16"/>
        <source>A 书中实测</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="17"/>
        <source>A 模拟 · 均匀混合 %1:%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="18"/>
        <source>A: %1/%2 已出首 token · B: %3/%4 已出首 token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="19"/>
        <source>B %1 ms: 首播 %2 ms, 停顿 %3 次 %4 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="20"/>
        <source>B · KV 池占用</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="21"/>
        <source>B · 前 %1:%2、后 %3:%4 · 等待队列与运行序列</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="22"/>
        <source>B · 每个请求 (Gantt)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="23"/>
        <source>B 书中实测</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="24"/>
        <source>B 模拟 · 前 %1:%2、后 %3:%4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="25"/>
        <source>E → P → D:三种表示对应三个交接位置(本请求)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="26"/>
        <source>GPU 小时 ÷ 卡数 = 日历时间</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="27"/>
        <source>Qwen3-%1B · %2 张 RTX PRO %3 · KV 池 %4 GiB · %5 序列 · 前缀缓存关。FCFS、%6-token 块、每步先 decode 再分块 prefill(预算 %7 token)、整段 prompt 的块空出来才接纳、块不够时抢占最近接纳的请求并重算。步时 = 屋顶线(带宽效率、prefill MFU、每步开销为示意旋钮)。书中实测值(vLLM %8)列在模拟值旁。</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="28"/>
        <source>generated sample; its file size is the book&apos;s %1 MB screenshot (给定输入)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="29"/>
        <source>p95 · 最近秩法,排队、首响应、完成分别排序</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="30"/>
        <source>patch 网格</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="31"/>
        <source>rows: requests by arrival · 灰 waiting · 蓝 prefill · 橙 decode · 红 preempted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="32"/>
        <source>t =   %1 s · 均匀混合 %2:%3 · 需求 %4% · 积压 %5 步</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="33"/>
        <source>§%1.1 改动位置 ·</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="34"/>
        <source>§%1.2 · 图像生成循环</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="35"/>
        <source>· 原图 %1×%2 (%3 MP, %4 kB, generated RGB) → 模型看到 %5×%6</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="36"/>
        <source>① 均匀混合 %1:%2 · %3 卡</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="37"/>
        <source>② 前 %1:%2 后 %3:%4 · %5 卡</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="38"/>
        <source>③ %1 s 突发 (%2:%3) · %4 卡</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="39"/>
        <source>④ %1 s 突发 (%2:%3) · %4 卡</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="40"/>
        <source>三种数据量(对数刻度)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="41"/>
        <source>从 Llama 到 Qwen:数据越给越多</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="42"/>
        <source>例题 %1-%2 · %3 点拟合、%4 点留出</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="43"/>
        <source>例题 %1-%2 · Scaling Law 拟合与留出检验</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="44"/>
        <source>例题 %1-%2 · 局部加速被原占比封顶</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="45"/>
        <source>例题 %1-%2 · 练习 %3-%4 · 积压曲线</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="46"/>
        <source>全部可复用。</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="47"/>
        <source>到达跟不上播放,缓冲只是延后中断</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="48"/>
        <source>前一分钟 %1:%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="49"/>
        <source>原尺寸 → 模型尺寸</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="50"/>
        <source>合并 token 网格</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="51"/>
        <source>同一张图在三个阶段差一个数量级:说“贵”要指明是哪一段</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="52"/>
        <source>后一分钟 %1:%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="53"/>
        <source>后端停止</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="54"/>
        <source>因果注意力:token 的 KV 取决于它之前的一切</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="55"/>
        <source>图 %1-%2 / %3-%4 · 工具有没有依赖</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="56"/>
        <source>图 %1-%2 / %3-%4 · 抖动缓冲与打断</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="57"/>
        <source>图 %1-%2 · GPU 小时折算成 A100 等效</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="58"/>
        <source>图 %1-%2 · 一次 prefill,接着逐个 decode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="59"/>
        <source>图 %1-%2 · 三种数据与交接</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="60"/>
        <source>图 %1-%2 · 分支共享前缀</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="61"/>
        <source>图 %1-%2 · 状态没变大,但这段时间别人用不了</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="62"/>
        <source>图 %1-%2 · 缩短哪一段,只改变包含它的指标</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="63"/>
        <source>图 %1-%2 · 训练投入是截距,单次调用是斜率</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="64"/>
        <source>圆点 = 到达 · 短竖线 = 原定播放 · 色条 = 实际播放 (model; live run drawn over it)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="65"/>
        <source>均匀混合 %1:%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="66"/>
        <source>尖峰 %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="67"/>
        <source>工具 / 环境 / 反馈</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="68"/>
        <source>平均数相同,负载不一定相同:三段的平均请求率都是每秒 %1 条,只有长输入(%2→%3)与长输出(%4→%5)两类的占比不同。decode 能力由显存带宽给出(虚线 = %6%);前一分钟空闲的算力留不到后一分钟。</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="69"/>
        <source>当前(问题在图片之后)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="70"/>
        <source>当前: 峰值 %1 步 @ %2 s · 排空 %3 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="71"/>
        <source>当前参数</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="72"/>
        <source>悬停一个 token,看它合并了哪几个 patch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="73"/>
        <source>打断</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="74"/>
        <source>打断时刻、后端与释放延迟为示意</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="75"/>
        <source>抖动 + 尖峰 (示意)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="76"/>
        <source>整个请求</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="77"/>
        <source>有限缓冲吸收抖动,补不了速率缺口</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="78"/>
        <source>样例 %1×%2 (generated)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="79"/>
        <source>模型与缩放策略 · Qwen3-VL-%1B (patch %2 %3×%4 合并, DeepStack ×%5)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="80"/>
        <source>步时与 codec 帧率为示意</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="81"/>
        <source>状态驻留(KV、显存)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="82"/>
        <source>真实回放 · KV 池满了,空着的算力也接不了新请求 — continuous batching, two scenarios side by side</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="83"/>
        <source>积压 / 超限</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="84"/>
        <source>等待 / 空闲</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="85"/>
        <source>练习 %1-%2 · %3 ms 与 %4 ms 初始缓冲</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="86"/>
        <source>练习 %1-%2 · 总输出相同,请求数不同</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="87"/>
        <source>练习 %1-%2 · 每个成功任务的成本</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="88"/>
        <source>练习 %1-%2 · 选哪个模型取决于未来调用量</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="89"/>
        <source>练习 %1-%2 · 预算翻倍,新增计算分给谁</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="90"/>
        <source>网络 %1 ms 为示意</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="91"/>
        <source>自适应缓冲</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="92"/>
        <source>蓝 = 图片 token,橙 = 问题,灰 = 前缀;红框 = 换问题后要重算的 KV。</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="93"/>
        <source>虚线 %1% = %2 步/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="94"/>
        <source>设备静音</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="95"/>
        <source>释放缓冲/状态</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="96"/>
        <source>长流 + %1 ms 尖峰</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="97"/>
        <source>问题在前 before: 换问题后保留 %1 B,重算 %2 MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="98"/>
        <source>问题在后 after: 换问题后保留 %1 MiB,重算 %2 MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="99"/>
        <source>问题放在哪里 · 换一个问题,哪些 KV 还能用</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="100"/>
        <source>首个有用输出</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="101"/>
        <source>首播</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tip</name>
    <message>
        <location filename="strings_en.py" line="102"/>
        <source>: D training tokens (Qwen3: 约 %1T)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="103"/>
        <source>: N (Qwen3 · 约 %1B)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="104"/>
        <source>: attempts that passed the check (旧方法 %1%)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="105"/>
        <source>: share of long-input requests (均匀 %1; 前一分钟 %2:%3 = %4; 后一分钟 %5:%6 = %7)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="106"/>
        <source>: share of long-input requests per window (均匀 %1,%2; %3:%4→%5:%6 = %7,%8)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="107"/>
        <source>: μ per card (书中取值 %1; serving.decode_rate)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="108"/>
        <source>= cards · μ/卡</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="109"/>
        <source>原图 raw image: %1 kB — 接收方还要做视觉编码 E</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="110"/>
        <source>圆点 = 到达 · 短竖线 = 原定播放 · 色条 = 实际播放 (model; live run drawn over it)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="111"/>
        <source>打断时刻、后端与释放延迟为示意</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="112"/>
        <source>有限缓冲吸收抖动,补不了速率缺口</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="113"/>
        <source>步时与 codec 帧率为示意</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="114"/>
        <source>编码结果 EC: %1 MiB — 接收方从语言 prefill P 开始</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="115"/>
        <source>网络 %1 ms 为示意</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_en.py" line="116"/>
        <source>语言 KV: %1 MiB — 交接已完成的语言上下文,直接 D</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
