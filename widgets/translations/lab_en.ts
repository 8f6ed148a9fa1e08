<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="zh_CN">
<context>
    <name>lab</name>
    <message>
        <location filename="strings_en_lab.py" line="6"/>
        <source>%1 成功 → %2 / 成功</source>
        <translation>%1 successes → %2 / success</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="7"/>
        <source>%1 次 × %2 = %3</source>
        <translation>%1 attempts × %2 = %3</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="8"/>
        <source>%1 步/s · %2%</source>
        <translation>%1 steps/s · %2%</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="10"/>
        <source>%1×%2 = %3 个 patch → %4×%5 = %6 个视觉 token</source>
        <translation>%1×%2 = %3 patches → %4×%5 = %6 visual tokens</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="11"/>
        <source>(%1/卡 × %2 卡)</source>
        <translation>(%1/card × %2 cards)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="12"/>
        <source>(t) = A(t) − P(t):已到达的可播放时长 − 已播放时长。播放期间 P(t) 每秒涨 %1 秒,A(t) 随数据块跳跃增长;余量降到零而下一块没到,声音就断。</source>
        <translation>(t) = A(t) − P(t): playable audio arrived − audio played. While playing, P(t) grows %1 s per second and A(t) jumps with each chunk; when the margin hits zero before the next chunk arrives, the sound breaks.</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="14"/>
        <source>,需重算</source>
        <translation>, recomputed</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="15"/>
        <source>: D training tokens (Qwen3: 约 %1T)</source>
        <translation>: D training tokens (Qwen3: about %1T)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="15"/>
        <source>约 %1B</source>
        <translation>about %1B</translation>
    </message>
    <message>
        <source>: N (Qwen3 · 约 %1B)</source>
        <translation type="vanished">: N (Qwen3 · about %1B)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="18"/>
        <source>: attempts that passed the check (旧方法 %1%)</source>
        <translation>: attempts that passed the check (old method %1%)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="19"/>
        <source>: share of long-input requests (均匀 %1; 前一分钟 %2:%3 = %4; 后一分钟 %5:%6 = %7)</source>
        <translation>: share of long-input requests (even %1; first minute %2:%3 = %4; second minute %5:%6 = %7)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="20"/>
        <source>: share of long-input requests per window (均匀 %1,%2; %3:%4→%5:%6 = %7,%8)</source>
        <translation>: share of long-input requests per window (even %1,%2; %3:%4→%5:%6 = %7,%8)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="21"/>
        <source>: μ per card (书中取值 %1; serving.decode_rate)</source>
        <translation>: μ per card (the book&apos;s value %1; serving.decode_rate)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="22"/>
        <source>:只换问题时,KV 保留</source>
        <translation>: when only the question changes, the KV is kept</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="23"/>
        <source>;EC 只取决于图片,</source>
        <translation>; EC depends only on the images,</translation>
    </message>
    <message>
        <source>= cards · μ/卡</source>
        <translation type="vanished">= cards · μ/card</translation>
    </message>
    <message>
        <source>A %1 ms: 首播 %2 ms, 停顿 %3 次 %4 s</source>
        <translation type="vanished">A %1 ms: first playback %2 ms, %3 stalls %4 s</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="25"/>
        <source>A · KV 池占用</source>
        <translation>A · KV pool use</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="26"/>
        <source>A · 均匀混合 %1:%2 · 等待队列与运行序列</source>
        <translation>A · even mix %1:%2 · waiting queue and running sequences</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="27"/>
        <source>A · 每个请求 (Gantt)</source>
        <translation>A · each request (Gantt)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="28"/>
        <source>A 书中实测</source>
        <translation>A measured (book)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="29"/>
        <source>A 模拟 · 均匀混合 %1:%2</source>
        <translation>A simulated · even mix %1:%2</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="36"/>
        <source>B 模拟 · 前 %1:%2、后 %3:%4</source>
        <oldsource>A: %1/%2 已出首 token · B: %3/%4 已出首 token</oldsource>
        <translation>B simulated · first %1:%2, then %3:%4</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="37"/>
        <source>E → P → D:三种表示对应三个交接位置(本请求)</source>
        <oldsource>B %1 ms: 首播 %2 ms, 停顿 %3 次 %4 s</oldsource>
        <translation>E → P → D: three representations, three hand-off points (this request)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="32"/>
        <source>B · KV 池占用</source>
        <translation>B · KV pool use</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="33"/>
        <source>B · 前 %1:%2、后 %3:%4 · 等待队列与运行序列</source>
        <translation>B · first %1:%2, then %3:%4 · waiting queue and running sequences</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="34"/>
        <source>B · 每个请求 (Gantt)</source>
        <translation>B · each request (Gantt)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="35"/>
        <source>B 书中实测</source>
        <translation>B measured (book)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="38"/>
        <source>GPU 小时 ÷ 卡数 = 日历时间</source>
        <translation>GPU hours ÷ cards = calendar time</translation>
    </message>
    <message>
        <source>Load Lab · 推理与训练负载</source>
        <translation type="vanished">Load Lab · inference and training load</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="39"/>
        <source>Qwen3-%1B · %2 张 RTX PRO %3 · KV 池 %4 GiB · %5 序列 · 前缀缓存关。FCFS、%6-token 块、每步先 decode 再分块 prefill(预算 %7 token)、整段 prompt 的块空出来才接纳、块不够时抢占最近接纳的请求并重算。步时 = 屋顶线(带宽效率、prefill MFU、每步开销为示意旋钮)。书中实测值(vLLM %8)列在模拟值旁。</source>
        <translation>Qwen3-%1B · %2× RTX PRO %3 · KV pool %4 GiB · %5 sequences · prefix cache off. FCFS, %6-token blocks, each step decodes first, then chunked prefill (budget %7 tokens); a request is admitted only when its whole prompt&apos;s blocks are free; when blocks run out the latest admitted request is preempted and recomputed. Step time = roofline (bandwidth efficiency, prefill MFU and per-step overhead are illustrative knobs). The book&apos;s measured values (vLLM %8) sit beside the simulated ones.</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="41"/>
        <source>generated sample; its file size is the book&apos;s %1 MB screenshot (给定输入)</source>
        <translation>generated sample; its file size is the book&apos;s %1 MB screenshot (given input)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="42"/>
        <source>p95 · 最近秩法,排队、首响应、完成分别排序</source>
        <translation>p95 · nearest rank; queue, first response and completion ranked separately</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="43"/>
        <source>patch 网格</source>
        <translation>patch grid</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="44"/>
        <source>rows: requests by arrival · 灰 waiting · 蓝 prefill · 橙 decode · 红 preempted</source>
        <translation>rows: requests by arrival · grey waiting · blue prefill · orange decode · red preempted</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="45"/>
        <source>t =   %1 s · 均匀混合 %2:%3 · 需求 %4% · 积压 %5 步</source>
        <translation>t =   %1 s · even mix %2:%3 · demand %4% · backlog %5 steps</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="45"/>
        <source>t = %1 s · 前一分钟 %2:%3 · 需求 %4% · 积压 %5 步</source>
        <translation>t = %1 s · first minute %2:%3 · demand %4% · backlog %5 steps</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="45"/>
        <source>t = %1 s · 后一分钟 %2:%3 · 需求 %4% · 积压 %5 步</source>
        <translation>t = %1 s · second minute %2:%3 · demand %4% · backlog %5 steps</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="45"/>
        <source>对照 · 均匀混合 %1:%2 · 需求 %3% · 积压 %4 步</source>
        <translation>comparison · even mix %1:%2 · demand %3% · backlog %4 steps</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="46"/>
        <source>token mean (Σ n 作分母)</source>
        <translation>token mean (Σ n as denominator)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="47"/>
        <source>token mean = %1,mean of means = %2。先各自求均值再平均,有效 token 少的 micro-batch 里每个 token 权重大 %3 倍;累计各 micro-batch 时分母应是整个 batch 的有效 token 总数。</source>
        <translation>token mean = %1, mean of means = %2. Averaging each micro-batch first makes a token of the micro-batch with fewest valid tokens weigh %3× more; when accumulating micro-batches the denominator should be the valid tokens of the whole batch.</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="49"/>
        <source>§%1 损失归一化 ·</source>
        <translation>§%1 loss normalisation ·</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="50"/>
        <source>§%1 组内相对优势 ·</source>
        <translation>§%1 group-relative advantage ·</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="52"/>
        <source>§%1.1 改动位置 ·</source>
        <translation>§%1.1 edit position ·</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="53"/>
        <source>§%1.1 线性层 · 练习 %2-%3 ·</source>
        <translation>§%1.1 linear layer · Exercise %2-%3 ·</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="67"/>
        <source>例题 %1-%2 · %3 点拟合、%4 点留出</source>
        <oldsource>§%1.2 · 图像生成循环</oldsource>
        <translation>Example %1-%2 · %3 points fitted, %4 held out</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="57"/>
        <source>· 原图 %1×%2 (%3 MP, %4 kB, generated RGB) → 模型看到 %5×%6</source>
        <translation>· original %1×%2 (%3 MP, %4 kB, generated RGB) → the model sees %5×%6</translation>
    </message>
    <message>
        <source>%1 张图 + %2 文本 token</source>
        <translation type="vanished">%1 images + %2 text tokens</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="24"/>
        <source>A %1 ms: 首播 %2 ms, 停顿 %3 次 %4 ms</source>
        <translation>A %1 ms: first playback %2 ms, %3 stalls %4 ms</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="30"/>
        <source>A: %1/%2 已出首 token · B: %3/%4 已出首 token</source>
        <translation>A: %1/%2 have their first token · B: %3/%4 have their first token</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="31"/>
        <source>B %1 ms: 首播 %2 ms, 停顿 %3 次 %4 s</source>
        <translation>B %1 ms: first playback %2 ms, %3 stalls %4 s</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="40"/>
        <source>Qwen3-VL-%1B: patch %2 %3×%4 合并, DeepStack ×%5</source>
        <translation>Qwen3-VL-%1B: patch %2, %3×%4 merge, DeepStack ×%5</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="48"/>
        <source>token 网格</source>
        <translation>token grid</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="51"/>
        <source>§%1.1 前缀复用 ·</source>
        <translation>§%1.1 prefix reuse ·</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="54"/>
        <source>§%1.2 · 图像生成循环</source>
        <translation>§%1.2 · the image generation loop</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="55"/>
        <source>§%1.2 有效吞吐 ·</source>
        <translation>§%1.2 goodput ·</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="56"/>
        <source>§%1.3 代码任务轨迹 ·</source>
        <translation>§%1.3 code-agent trajectory ·</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="58"/>
        <source>① 均匀混合 %1:%2 · %3 卡</source>
        <translation>① even mix %1:%2 · %3 cards</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="59"/>
        <source>② 前 %1:%2 后 %3:%4 · %5 卡</source>
        <translation>② first %1:%2, then %3:%4 · %5 cards</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="60"/>
        <source>③ %1 s 突发 (%2:%3) · %4 卡</source>
        <translation>③ %1 s burst (%2:%3) · %4 cards</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="61"/>
        <source>④ %1 s 突发 (%2:%3) · %4 卡</source>
        <translation>④ %1 s burst (%2:%3) · %4 cards</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="62"/>
        <source>三种数据量(对数刻度)</source>
        <translation>three data volumes (log scale)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="63"/>
        <source>两份文档:配对与整层工作</source>
        <translation>Two documents: pairs and the whole layer&apos;s work</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="64"/>
        <source>书 · 网络 %1 ms</source>
        <translation>book · network %1 ms</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="65"/>
        <source>书中例 %1×%2²</source>
        <translation>the book&apos;s example %1×%2²</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="66"/>
        <source>从 Llama 到 Qwen:数据越给越多</source>
        <translation>From Llama to Qwen: ever more data</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="68"/>
        <source>例题 %1-%2 · Scaling Law 拟合与留出检验</source>
        <translation>Example %1-%2 · fitting a scaling law, checked on held-out points</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="69"/>
        <source>例题 %1-%2 · 局部加速被原占比封顶</source>
        <translation>Example %1-%2 · a local speed-up is capped by its share</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="70"/>
        <source>例题 %1-%2 · 练习 %3-%4 · 积压曲线</source>
        <translation>Example %1-%2 · Exercise %3-%4 · backlog curves</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="71"/>
        <source>全图</source>
        <translation>whole image</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="72"/>
        <source>全部可复用。</source>
        <translation>all reusable.</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="73"/>
        <source>到达跟不上播放,缓冲只是延后中断</source>
        <translation>When arrivals fall behind playback, a buffer only delays the break</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="74"/>
        <source>前一分钟 %1:%2</source>
        <translation>first minute %1:%2</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="75"/>
        <source>原图 raw image: %1 kB — 接收方还要做视觉编码 E</source>
        <translation>raw image: %1 kB — the receiver still runs the vision encoder E</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="87"/>
        <source>图 %1-%2 · GPU 小时折算成 A100 等效(对数尺度)</source>
        <translation>Fig. %1-%2 · GPU hours as A100 equivalents (log scale)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="93"/>
        <source>图 %1-%2 · 状态没变大,但这段时间别人用不了</source>
        <oldsource>原图 raw image: %1 kB — 接收方还要做视觉编码 E</oldsource>
        <translation>Fig. %1-%2 · the state does not grow, but no one else can use it meanwhile</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="76"/>
        <source>原尺寸 → 模型尺寸</source>
        <translation>original → model</translation>
    </message>
    <message>
        <source>合并 token 网格</source>
        <translation type="vanished">merged token grid</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="77"/>
        <source>同一张图在三个阶段差一个数量级:说“贵”要指明是哪一段</source>
        <translation>One image differs by an order of magnitude across three stages: say which one is &quot;expensive&quot;</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="78"/>
        <source>同步 synchronous · 等新权重就绪再生成</source>
        <translation>synchronous · generate once the new weights are ready</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="79"/>
        <source>后一分钟 %1:%2</source>
        <translation>second minute %1:%2</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="80"/>
        <source>后端停止</source>
        <translation>backend stops</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="81"/>
        <source>因果注意力:token 的 KV 取决于它之前的一切</source>
        <translation>Causal attention: a token&apos;s KV depends on everything before it</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="82"/>
        <source>图 %1</source>
        <translation>image %1</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="83"/>
        <source>图 %1-%2 / %3-%4 · 工具有没有依赖</source>
        <translation>Fig. %1-%2 / %3-%4 · do the tools depend on each other</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="84"/>
        <source>图 %1-%2 / %3-%4 · 抖动缓冲与打断</source>
        <translation>Fig. %1-%2 / %3-%4 · jitter buffer and interrupt</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="85"/>
        <source>图 %1-%2 · %3ND 与逐项核算</source>
        <translation>Fig. %1-%2 · %3ND vs item by item</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="86"/>
        <source>图 %1-%2 · GPU 小时折算成 A100 等效</source>
        <translation>Fig. %1-%2 · GPU hours as A100 equivalents</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="88"/>
        <source>图 %1-%2 · 一次 prefill,接着逐个 decode</source>
        <translation>Fig. %1-%2 · one prefill, then decode one by one</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="89"/>
        <source>图 %1-%2 · 三种数据与交接</source>
        <translation>Fig. %1-%2 · three kinds of data and their hand-offs</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="90"/>
        <source>图 %1-%2 · 分支共享前缀</source>
        <translation>Fig. %1-%2 · branches share a prefix</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="91"/>
        <source>图 %1-%2 · 前向逐层向上,反向逐层向下;激活从前向完成留到反向用完</source>
        <translation>Fig. %1-%2 · forward goes up layer by layer, backward comes down; activations live from forward until backward uses them</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="92"/>
        <source>图 %1-%2 · 各尝试 %3 次:失败也进分子</source>
        <translation>Fig. %1-%2 · %3 attempts each: failures count in the numerator too</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="94"/>
        <source>图 %1-%2 · 缩短哪一段,只改变包含它的指标</source>
        <translation>Fig. %1-%2 · shortening a segment changes only the metrics that contain it</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="95"/>
        <source>图 %1-%2 · 训练投入是截距,单次调用是斜率</source>
        <translation>Fig. %1-%2 · training is the intercept, each call the slope</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="96"/>
        <source>图 %1-%2:某个角色变慢,后继角色就要等。同步方案等新权重就绪再生成;异步让生成与更新重叠,但样本由旧版本权重生成(v = 生成时的权重版本)。</source>
        <translation>Fig. %1-%2: when one role slows down, the roles after it wait. The synchronous scheme generates once new weights are ready; the asynchronous one overlaps generation and update, but samples come from older weights (v = weights version at generation).</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="97"/>
        <source>圆点 = 到达 · 短竖线 = 原定播放 · 色条 = 实际播放 (model; live run drawn over it)</source>
        <translation>dots = arrival · ticks = scheduled playback · bars = actual playback (model; live run drawn over it)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="98"/>
        <source>均匀混合 %1:%2</source>
        <translation>even mix %1:%2</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="99"/>
        <source>尖峰 %1</source>
        <translation>spike %1</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="100"/>
        <source>工具 / 环境 / 反馈</source>
        <translation>tools / environment / feedback</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="101"/>
        <source>平均数相同,负载不一定相同:三段的平均请求率都是每秒 %1 条,只有长输入(%2→%3)与长输出(%4→%5)两类的占比不同。decode 能力由显存带宽给出(虚线 = %6%);前一分钟空闲的算力留不到后一分钟。</source>
        <translation>The same average is not the same load: all three windows average %1 requests per second; only the shares of long-input (%2→%3) and long-output (%4→%5) requests differ. Decode capacity comes from memory bandwidth (dashed = %6%); compute idle in the first minute cannot be saved for the second.</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="102"/>
        <source>异步 asynchronous · 生成与更新重叠,数据可能滞后</source>
        <translation>asynchronous · generation overlaps the update; data may lag</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="103"/>
        <source>当前(问题在图片之后)</source>
        <translation>now (question after the images)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="104"/>
        <source>当前: 峰值 %1 步 @ %2 s · 排空 %3 s</source>
        <translation>now: peak %1 steps @ %2 s · drained %3 s</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="115"/>
        <source>查询—键配对 pairs</source>
        <translation>query–key pairs</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="119"/>
        <source>注意力 attention (%1ND 漏算)</source>
        <oldsource>当前: 峰值 %1 步 @ %2 s · 排空 %3 s</oldsource>
        <translation>attention (missed by %1ND)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="105"/>
        <source>当前参数</source>
        <translation>current parameters</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="5"/>
        <source>%1 张图</source>
        <translation>%1 images</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="9"/>
        <source>%1ND 粗算</source>
        <translation>%1ND rough estimate</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="13"/>
        <source>+ %1 文本 token</source>
        <translation>+ %1 text tokens</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="16"/>
        <source>: a measured run (思考开启 on / 关闭 off) or a CSV file with columns input_tokens, cached_tokens, output_tokens, model_wall_s, tool_wall_s</source>
        <translation>: a measured run (thinking on / off) or a CSV file with columns input_tokens, cached_tokens, output_tokens, model_wall_s, tool_wall_s</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="17"/>
        <source>: a measured run (思考开启 on / 关闭 off); a CSV of rounds has no checks, so no verdict</source>
        <translation>: a measured run (thinking on / off); a CSV of rounds has no checks, so no verdict</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="106"/>
        <source>形状为示意</source>
        <translation>shapes are illustrative</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="107"/>
        <source>悬停一个 token,看它合并了哪几个 patch</source>
        <translation>hover over a token to see which patches it merges</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="108"/>
        <source>打断</source>
        <translation>interrupt</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="109"/>
        <source>打断时刻、后端与释放延迟为示意</source>
        <translation>interrupt time, backend and release delays are illustrative</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="110"/>
        <source>抖动 + 尖峰 (示意)</source>
        <translation>jitter + spikes (illustrative)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="111"/>
        <source>整个请求</source>
        <translation>whole request</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="112"/>
        <source>时长为示意</source>
        <translation>durations are illustrative</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="113"/>
        <source>更新 / 反馈</source>
        <translation>update / feedback</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="114"/>
        <source>有限缓冲吸收抖动,补不了速率缺口</source>
        <translation>a finite buffer absorbs jitter, not a rate deficit</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="116"/>
        <source>样例 %1×%2 (generated)</source>
        <translation>sample %1×%2 (generated)</translation>
    </message>
    <message>
        <source>模型与缩放策略 · Qwen3-VL-%1B (patch %2 %3×%4 合并, DeepStack ×%5)</source>
        <translation type="vanished">model and resize policy · Qwen3-VL-%1B (patch %2, %3×%4 merge, DeepStack ×%5)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="117"/>
        <source>步时与 codec 帧率为示意</source>
        <translation>step times and codec frame rate are illustrative</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="118"/>
        <source>每次更新读 %1 个输入 token,损失只用 %2 个。只屏蔽标签时词表投影照样对全部 %3 行执行;只对监督行投影省 %4 TFLOPs(更新的 %5%)。</source>
        <translation>Each update reads %1 input tokens; the loss uses only %2. Masking labels alone still runs the vocabulary projection on all %3 rows; projecting supervised rows only saves %4 TFLOPs (%5% of the update).</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="120"/>
        <source>激活 = 每层为反向保存的张量(BF16,flash attention 不存注意力分数)的估算;书中图 %1-%2 的时长为示意,这里按所选卡的 BF16 峰值 × MFU 折算。“均分”只是把状态切开分给多卡保存的粗略示意(第 %3 章)。</source>
        <translation>Activations = an estimate of the tensors each layer saves for backward (BF16; flash attention keeps no attention scores). The durations of the book&apos;s Fig. %1-%2 are illustrative; here they follow the chosen card&apos;s BF16 peak × MFU. &quot;Split evenly&quot; is only a rough sketch of sharding the state over cards (chapter %3).</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="121"/>
        <source>激活与时长为估算/示意</source>
        <translation>activations and durations are estimates / illustrative</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="122"/>
        <source>状态驻留(KV、显存)</source>
        <translation>state resident (KV, memory)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="123"/>
        <source>生成 / decode</source>
        <translation>generation / decode</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="124"/>
        <source>相同奖励,学习信号归零</source>
        <translation>Same rewards: the learning signal vanishes</translation>
    </message>
    <message>
        <source>真实回放 · KV 池满了,空着的算力也接不了新请求 — continuous batching, two scenarios side by side</source>
        <translation type="vanished">real replay · once the KV pool is full, idle compute cannot take new requests — continuous batching, two scenarios side by side</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="125"/>
        <source>积压 / 超限</source>
        <translation>backlog / overload</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="126"/>
        <source>等待 / 空闲</source>
        <translation>waiting / idle</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="127"/>
        <source>练习 %1-%2 · %3 ms 与 %4 ms 初始缓冲</source>
        <translation>Exercise %1-%2 · %3 ms vs %4 ms initial buffer</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="128"/>
        <source>练习 %1-%2 · 只屏蔽标签 vs 只对监督 token 做词表投影</source>
        <translation>Exercise %1-%2 · masking labels only vs projecting supervised tokens only</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="129"/>
        <source>练习 %1-%2 · 总输出相同,请求数不同</source>
        <translation>Exercise %1-%2 · same total output, different request counts</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="130"/>
        <source>练习 %1-%2 · 每个成功任务的成本</source>
        <translation>Exercise %1-%2 · cost per successful task</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="131"/>
        <source>练习 %1-%2 · 选哪个模型取决于未来调用量</source>
        <translation>Exercise %1-%2 · which model to pick depends on future calls</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="132"/>
        <source>练习 %1-%2 · 预算翻倍,新增计算分给谁</source>
        <translation>Exercise %1-%2 · budget doubled: where the extra compute goes</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="133"/>
        <source>练习 %1-%2:两次测量的周期总量连成直线,斜率 = 每条回答的 f_g + f_r,截距 = 一次更新 F_u(图中 ◆)。同结构教师对每条回答前向一次;权重独立发给每个副本。</source>
        <translation>Exercise %1-%2: the line through two measured cycle totals has slope = f_g + f_r per answer and intercept = one update F_u (◆ in the figure). A same-shape teacher forwards each answer once; weights go to each replica separately.</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="134"/>
        <source>缓冲余量 B(t) = A(t) − P(t)</source>
        <translation>buffer margin B(t) = A(t) − P(t)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="135"/>
        <source>编码结果 EC</source>
        <translation>encoder output EC</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="136"/>
        <source>编码结果 EC: %1 MiB — 接收方从语言 prefill P 开始</source>
        <translation>encoder output EC: %1 MiB — the receiver starts at language prefill P</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="137"/>
        <source>网络 %1 ms 为示意</source>
        <translation>network %1 ms is illustrative</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="138"/>
        <source>耗尽 %1 s</source>
        <translation>runs dry %1 s</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="139"/>
        <source>自适应缓冲</source>
        <translation>adaptive buffer</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="140"/>
        <source>蓝 = 图片 token,橙 = 问题,灰 = 前缀;红框 = 换问题后要重算的 KV。</source>
        <translation>blue = image tokens, orange = question, grey = prefix; red frame = KV recomputed after a new question.</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="141"/>
        <source>虚线 %1% = %2 步/s</source>
        <translation>dashed %1% = %2 steps/s</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="142"/>
        <source>视觉 token</source>
        <translation>visual tokens</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="143"/>
        <source>设备静音</source>
        <translation>device muted</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="144"/>
        <source>词表投影 lm_head</source>
        <translation>vocabulary projection lm_head</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="145"/>
        <source>语言 KV</source>
        <translation>language KV</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="146"/>
        <source>语言 KV: %1 MiB — 交接已完成的语言上下文,直接 D</source>
        <translation>language KV: %1 MiB — hands over the finished language context, straight to D</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="147"/>
        <source>输入 %1 token/s</source>
        <translation>input %1 tokens/s</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="148"/>
        <source>输入处理 / prefill</source>
        <translation>input processing / prefill</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="149"/>
        <source>逐项 / %1ND = %2 (+%3%)</source>
        <translation>item by item / %1ND = %2 (+%3%)</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="150"/>
        <source>释放缓冲/状态</source>
        <translation>buffers/state released</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="151"/>
        <source>长流 + %1 ms 尖峰</source>
        <translation>long stream + %1 ms spike</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="152"/>
        <source>问题在前 before: 换问题后保留 %1 B,重算 %2 MiB</source>
        <translation>question before: after a new question %1 B kept, %2 MiB recomputed</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="153"/>
        <source>问题在后 after: 换问题后保留 %1 MiB,重算 %2 MiB</source>
        <translation>question after: after a new question %1 MiB kept, %2 MiB recomputed</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="154"/>
        <source>问题放在哪里 · 换一个问题,哪些 KV 还能用</source>
        <translation>Where the question goes · which KV survives a new question</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="155"/>
        <source>首个有用输出</source>
        <translation>first useful output</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="156"/>
        <source>首响应 TTFT</source>
        <translation>first response TTFT</translation>
    </message>
    <message>
        <location filename="strings_en_lab.py" line="157"/>
        <source>首播</source>
        <translation>first playback</translation>
    </message>
    <message>
        <location filename="strings_extra.py" line="7"/>
        <source>· %1 layer activations alive (micro-batch %2/%3) ·</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_extra.py" line="10"/>
        <source>calculator</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_extra.py" line="11"/>
        <source>book ref</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_extra.py" line="12"/>
        <source>output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_extra.py" line="13"/>
        <source>book prints</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_extra.py" line="14"/>
        <source>book value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_extra.py" line="15"/>
        <source>computed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_extra.py" line="16"/>
        <source>tolerance</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
