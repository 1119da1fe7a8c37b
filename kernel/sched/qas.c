// SPDX-License-Identifier: GPL-2.0
/*
 * SCHED_BVT quality-assuring scheduling, after QAS (C.-J. Hamann, J. Loeser,
 * L. Reuther, S. Schoenberg, J. Wolter and H. Haertig, "Quality-Assuring
 * Scheduling - Using Stochastic Behavior to Improve Resource Utilization",
 * RTSS 2001), on the CPU reservations of bvt_rsv.c.  Built with bvt.c by
 * build_bvt.c, under CONFIG_SCHED_BVT_QAS.
 *
 * A periodic thread holds a reservation set: parts of each of its periods,
 * used in turn, as DROPS let a thread do (the paper's section 5.1).  The
 * first part may be mandatory: its amount is the worst case, admitted and
 * guaranteed in every period.  The others are optional: the amount of each
 * is what user space computed, from the distribution of the thread's
 * execution times, for the quality asked of it (tools/sched/qas-admit);
 * they are not admitted, and run at fixed priorities (Quality Monotonic
 * Scheduling: a part asked for a lower quality runs later) in what the
 * reservations and accepted time constraints of the CPU leave, before the
 * BVT tree.
 *
 * A part ends when it has run its amount, an overrun, or when the thread
 * goes on to the next (BVT_CTL_QAS_NEXT), and the next one starts.  When
 * the last has ended the thread runs as the BVT thread it is, or, if it
 * asked to be restricted to its reserved time, waits for its next period.
 * Each period starts with all the parts afresh; an overrun, and a period
 * that ends with a part not ended, notify the thread as DROPS raised
 * exceptions: a signal, and counters.
 *
 * The mandatory part is a reservation of bvt_rsv.c made to hold its amount in
 * every window of the thread's period, whatever its phase
 * (bvt_plan_window_amount()): the thread runs in its slots while it is in
 * that part, and before the optional parts in the plan's free time; once
 * past it, its slots are free time too.  The periods themselves are the
 * thread's own, kept by an hrtimer from its first BVT_CTL_QAS_BEGIN; the
 * budget of a part is enforced by the CPU's enforcement timer (bvt.c).
 */
/*
 * Orders the changes of a set made for other threads (period, reserve,
 * end, state) against each other and against the thread's exit, which
 * frees it.  The set's state itself changes under its thread's rq lock.
 */
static DEFINE_MUTEX(bvt_qas_mutex);

/* bvt_qas::work */
#define BVT_QAS_WORK_QUEUED	0
/* bvt_qas::pending: bit i, part i overran; this + i, a period ended in it */
#define BVT_QAS_PENDING_PERIOD	SCHED_BVT_QAS_PARTS_MAX

/* Is @qas's thread in one of its parts? */
static inline bool bvt_qas_in_part(const struct bvt_qas *qas)
{
	return qas->active && qas->started && qas->part < qas->nr_parts;
}

/* The rank of @qas's current part: 0 is mandatory, then by priority. */
static inline u32 bvt_qas_rank(const struct bvt_qas *qas)
{
	return qas->parts[qas->part].rank;
}

/*
 * Is @p in its mandatory part, for which its reservation's slots are?
 * Read without @p's rq lock by a CPU its plan has it on, as a hint.
 */
bool bvt_qas_mandatory(struct task_struct *p)
{
	struct bvt_qas *qas = bvt_qas_of(p);

	return qas && READ_ONCE(qas->active) && READ_ONCE(qas->started) &&
	       !READ_ONCE(qas->part) && READ_ONCE(qas->nr_parts) &&
	       !qas->parts[0].rank;
}

static inline bool bvt_qas_before(struct rb_node *a, const struct rb_node *b)
{
	return bvt_qas_rank(rb_entry(a, struct bvt_qas, node)) <
	       bvt_qas_rank(rb_entry(b, struct bvt_qas, node));
}

static void bvt_qas_unqueue(struct rq *rq, struct bvt_qas *qas)
{
	if (!qas->queued)
		return;
	rb_erase_cached(&qas->node, &rq->bvt.pl.qas_parts);
	qas->queued = 0;
	rq->bvt.pl.nr_qas--;
}

/* Queue @qas's thread, runnable on @rq, by the rank of its part. */
static void bvt_qas_queue(struct rq *rq, struct bvt_qas *qas)
{
	if (qas->queued || !bvt_qas_in_part(qas))
		return;
	rb_add_cached(&qas->node, &rq->bvt.pl.qas_parts, bvt_qas_before);
	qas->queued = 1;
	rq->bvt.pl.nr_qas++;
}

/* @p, on @rq locked, changed part: requeue it by its new one. */
static void bvt_qas_requeue(struct rq *rq, struct task_struct *p)
{
	struct bvt_qas *qas = bvt_qas_of(p);

	lockdep_assert_rq_held(rq);
	bvt_qas_unqueue(rq, qas);
	if (task_on_rq_queued(p) && p->sched_class == &bvt_sched_class)
		bvt_qas_queue(rq, qas);
}

/* enqueue_task_bvt() and dequeue_task_bvt() of a thread with a set. */
void bvt_qas_enqueued(struct rq *rq, struct task_struct *p)
{
	bvt_qas_queue(rq, bvt_qas_of(p));
}

void bvt_qas_dequeued(struct rq *rq, struct task_struct *p)
{
	bvt_qas_unqueue(rq, bvt_qas_of(p));
}

/* The thread of @rq whose part comes first (__bvt_plan_pick()). */
struct task_struct *bvt_qas_pick(struct rq *rq)
{
	struct rb_node *node = rb_first_cached(&rq->bvt.pl.qas_parts);

	return node ? rb_entry(node, struct bvt_qas, node)->task : NULL;
}

/* How long the running @p may go on in its part; 0: it is in none. */
u64 bvt_qas_left(struct task_struct *p)
{
	struct bvt_qas *qas = bvt_qas_of(p);
	u64 ran, amount;

	if (!bvt_qas_in_part(qas))
		return 0;
	ran = p->se.sum_exec_runtime - qas->part_exec;
	amount = qas->parts[qas->part].amount;
	return ran < amount ? amount - ran : 1;
}

/*
 * Have @p's task work send its notifications, and wait for the next
 * period if it is restricted, when it next returns to user space: no
 * signal may be sent, nor a thread put to sleep, from under an rq lock.
 */
static void bvt_qas_kick(struct task_struct *p, struct bvt_qas *qas)
{
	/* No allocation under the rq lock, as task_tick_mm_cid() asks. */
	if (!test_and_set_bit(BVT_QAS_WORK_QUEUED, &qas->work) &&
	    task_work_add(p, &qas->notify, TWA_RESUME | TWAF_NO_ALLOC))
		clear_bit(BVT_QAS_WORK_QUEUED, &qas->work);
}

static void bvt_qas_notify(struct task_struct *p, struct bvt_qas *qas,
			   unsigned int bit)
{
	if (!qas->signal)
		return;
	set_bit(bit, &qas->pending);
	bvt_qas_kick(p, qas);
}

/* What runs on @rq is looked at again: @p, running, changed part. */
static void bvt_qas_resched(struct rq *rq, struct task_struct *p)
{
	if (p->sched_class != &bvt_sched_class)
		return;
	if (task_current(rq, p)) {
		resched_curr(rq);
		bvt_enforce_arm(rq, &p->bvt);
	} else if (bvt_qas_of(p)->queued) {
		bvt_check_preempt(rq, p, 0);
	}
}

/*
 * End @p's current part, @p on @rq locked: @overrun, it has run its
 * amount; else the thread let it go.  The next one starts.
 */
static void bvt_qas_next_part(struct rq *rq, struct task_struct *p,
			      bool overrun)
{
	struct bvt_qas *qas = bvt_qas_of(p);

	lockdep_assert_rq_held(rq);
	trace_sched_bvt_qas_part(p, qas->part, overrun);
	if (overrun) {
		qas->parts[qas->part].nr_overruns++;
		qas->nr_overruns++;
		bvt_qas_notify(p, qas, qas->part);
	}
	qas->part++;
	qas->part_exec = p->se.sum_exec_runtime;
	bvt_qas_requeue(rq, p);
	if (qas->part == qas->nr_parts && qas->flags & SCHED_BVT_QAS_RESTRICT) {
		qas->restrict_wait = 1;
		bvt_qas_kick(p, qas);
	}
	bvt_qas_resched(rq, p);
}

/* The enforcement timer: the running thread's part has run its amount. */
void bvt_qas_check(struct rq *rq)
{
	struct task_struct *curr = rq->curr;
	struct bvt_qas *qas = bvt_qas_of(curr);

	if (likely(!qas) || curr->sched_class != &bvt_sched_class ||
	    !bvt_qas_in_part(qas))
		return;
	if (curr->se.sum_exec_runtime - qas->part_exec >=
	    qas->parts[qas->part].amount)
		bvt_qas_next_part(rq, curr, true);
}

/*
 * @n periods of @p's have started, the last at @start: all its parts
 * start again.  A part not ended by then is notified.
 */
static void bvt_qas_new_period(struct rq *rq, struct task_struct *p,
			       u64 start, u64 n)
{
	struct bvt_qas *qas = bvt_qas_of(p);
	unsigned int ended = qas->part;

	if (ended < qas->nr_parts) {
		qas->parts[ended].nr_period_ends++;
		qas->nr_period_ends++;
		if (!bvt_qas_rank(qas))
			qas->nr_mandatory_misses++;
		bvt_qas_notify(p, qas, BVT_QAS_PENDING_PERIOD + ended);
	}
	qas->seq += n;
	qas->nr_periods += n;
	qas->period_start = start;
	qas->part = 0;
	qas->restrict_wait = 0;
	qas->part_exec = p->se.sum_exec_runtime;
	trace_sched_bvt_qas_period(p, qas->seq, start, ended);
	bvt_qas_requeue(rq, p);
	bvt_qas_resched(rq, p);
}

/* A period of the thread starts. */
static enum hrtimer_restart bvt_qas_timer_fn(struct hrtimer *timer)
{
	struct bvt_qas *qas = container_of(timer, struct bvt_qas, timer);
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	struct task_struct *p = qas->task;
	struct rq_flags rf;
	struct rq *rq;
	bool wake;
	u64 n;

	rq = task_rq_lock(p, &rf);
	wake = qas->waiting || qas->restrict_wait;
	if (qas->active) {
		update_rq_clock(rq);
		if (task_current(rq, p))
			p->sched_class->update_curr(rq);
		n = hrtimer_forward_now(timer, ns_to_ktime(qas->period));
		bvt_qas_new_period(rq, p, ktime_to_ns(hrtimer_get_expires(timer)) -
				   qas->period, n);
		ret = HRTIMER_RESTART;
	}
	task_rq_unlock(rq, p, &rf);
	if (wake)
		wake_up_process(p);
	return ret;
}

/* Wait, in @state, for a period after @seq, or for the set to end. */
static int bvt_qas_wait(struct bvt_qas *qas, u64 seq, unsigned int state)
{
	int ret = 0;

	for (;;) {
		set_current_state(state);
		if (READ_ONCE(qas->seq) != seq || !READ_ONCE(qas->active))
			break;
		if (signal_pending_state(state, current)) {
			ret = -ERESTARTSYS;
			break;
		}
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return ret;
}

/*
 * The thread's task work, on its way to user space: its notifications,
 * then, restricted to its reserved time and past its parts, the wait for
 * its next period (killable only: the signals just sent come after).
 */
static void bvt_qas_work_fn(struct callback_head *head)
{
	struct task_struct *p = current;
	struct bvt_qas *qas = bvt_qas_of(p);	/* freed by @p itself */
	struct kernel_siginfo info;
	unsigned long pending;
	struct rq_flags rf;
	struct rq *rq;
	bool wait;
	int bit;
	u64 seq;

	if (!qas)
		return;
	clear_bit(BVT_QAS_WORK_QUEUED, &qas->work);
	pending = xchg(&qas->pending, 0);
	for_each_set_bit(bit, &pending, 2 * SCHED_BVT_QAS_PARTS_MAX) {
		clear_siginfo(&info);
		info.si_signo = READ_ONCE(qas->signal);
		if (!info.si_signo)
			break;
		info.si_code = bit < BVT_QAS_PENDING_PERIOD ?
			       SI_BVT_QAS_OVERRUN : SI_BVT_QAS_PERIOD;
		info.si_int = bit % BVT_QAS_PENDING_PERIOD;
		do_send_sig_info(info.si_signo, &info, p, PIDTYPE_PID);
	}

	rq = task_rq_lock(p, &rf);
	wait = qas->restrict_wait;
	seq = qas->seq;
	/* Woken as BEGIN's waiter is: by the timer, END, a new set. */
	qas->waiting = wait;
	task_rq_unlock(rq, p, &rf);
	if (!wait)
		return;
	bvt_qas_wait(qas, seq, TASK_KILLABLE | TASK_NOLOAD);
	rq = task_rq_lock(p, &rf);
	qas->waiting = 0;
	task_rq_unlock(rq, p, &rf);
}

/* End @p's periods, on its rq locked; its reservation is released apart. */
void bvt_qas_stop(struct rq *rq, struct task_struct *p)
{
	struct bvt_qas *qas = bvt_qas_of(p);

	lockdep_assert_rq_held(rq);
	if (likely(!qas) || !qas->active)
		return;
	qas->active = 0;
	qas->restrict_wait = 0;
	bvt_qas_unqueue(rq, qas);
	/* A waiter is woken by the timer, which then stops. */
	if (task_current(rq, p))
		resched_curr(rq);
}

/* Called under bvt_rsv_lock and @p's rq lock: may a part link to @p? */
bool bvt_qas_takes_rsv(struct task_struct *p)
{
	struct bvt_qas *qas = bvt_qas_of(p);

	return qas && qas->active && !qas->started && !qas->nr_parts;
}

/* @p exits, or has a set to end: stopped, and its reservation released. */
static void bvt_qas_end(struct task_struct *p, struct bvt_qas *qas)
{
	struct bvt_rsv *rsv = NULL;
	struct rq_flags rf;
	struct rq *rq;
	bool waiting;

	lockdep_assert_held(&bvt_qas_mutex);
	rq = task_rq_lock(p, &rf);
	bvt_qas_stop(rq, p);
	waiting = qas->waiting;
	task_rq_unlock(rq, p, &rf);
	hrtimer_cancel(&qas->timer);
	if (waiting)
		wake_up_process(p);

	guard(mutex)(&bvt_rsv_mutex);
	rsv = bvt_rsv_of(p);
	if (rsv && rsv->window) {
		rsv = bvt_rsv_unlink(p);
		if (rsv)
			__bvt_rsv_free(rsv);
	}
}

/*
 * exec: the new program has none of the old one's handlers, so its
 * notifications stop (a signal it does not catch would kill it); the set
 * and its counters go on.
 */
void bvt_qas_exec(struct task_struct *p)
{
	struct rq_flags rf;
	struct rq *rq;

	if (likely(!bvt_qas_of(p)))
		return;
	rq = task_rq_lock(p, &rf);
	bvt_qas_of(p)->signal = 0;
	bvt_qas_of(p)->pending = 0;
	task_rq_unlock(rq, p, &rf);
}

/*
 * @qas, ended, is no longer @p's: no one kicks it any more.  Its task
 * work may still be queued; CPUs may read it for a hint
 * (bvt_qas_mandatory()).
 */
static void bvt_qas_free(struct task_struct *p, struct bvt_qas *qas)
{
	task_work_cancel(p, &qas->notify);
	kfree_rcu(qas, rcu);
}

/* do_exit(): the thread's set ends and is freed. */
void bvt_qas_exit(struct task_struct *p)
{
	struct bvt_qas *qas;
	struct rq_flags rf;
	struct rq *rq;

	guard(mutex)(&bvt_qas_mutex);
	qas = bvt_qas_of(p);
	if (!qas)
		return;
	bvt_qas_end(p, qas);
	rq = task_rq_lock(p, &rf);
	WRITE_ONCE(p->bvt.in_plan->qas, NULL);
	task_rq_unlock(rq, p, &rf);
	bvt_qas_free(p, qas);
}

/* BVT_CTL_QAS_PERIOD: make @p periodic. */
static long bvt_qas_set_period(struct task_struct *p, struct sched_bvt_qas *arg)
{
	struct bvt_plan_task *spare __free(kfree) = NULL;
	struct bvt_qas *qas, *new = NULL;
	struct rq_flags rf;
	struct rq *rq;
	long ret = 0;

	if (arg->period < SCHED_BVT_RSV_PERIOD_MIN ||
	    arg->period > SCHED_BVT_RSV_PERIOD_MAX ||
	    arg->flags & ~SCHED_BVT_QAS_RESTRICT || arg->__reserved ||
	    (arg->signal && (!valid_signal(arg->signal) ||
			     sig_kernel_only(arg->signal))) ||
	    p->flags & PF_KTHREAD)
		return -EINVAL;
	/* Signals for another thread would pass by kill's permissions. */
	if (arg->signal && p != current)
		return -EPERM;

	if (bvt_in_plan_prepare(p, &spare))
		return -ENOMEM;
	guard(mutex)(&bvt_qas_mutex);
	qas = bvt_qas_of(p);
	if (qas && qas->active)
		return -EEXIST;
	if (qas) {
		/* Ended: its timer may still be about to wake a waiter. */
		hrtimer_cancel(&qas->timer);
		if (qas->waiting)
			wake_up_process(p);
	} else {
		new = kzalloc(sizeof(*qas), GFP_KERNEL);
		if (!new)
			return -ENOMEM;
		qas = new;
		qas->task = p;
		hrtimer_init(&qas->timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_ABS_PINNED_HARD);
		qas->timer.function = bvt_qas_timer_fn;
		init_task_work(&qas->notify, bvt_qas_work_fn);
	}

	rq = task_rq_lock(p, &rf);
	if (p->policy != SCHED_BVT || p->flags & PF_EXITING) {
		ret = -ESRCH;
	} else {
		qas->period = arg->period;
		qas->flags = arg->flags;
		qas->signal = arg->signal;
		qas->nr_parts = 0;
		qas->part = 0;
		qas->seq = 0;
		qas->begun = 0;
		qas->started = 0;
		qas->restrict_wait = 0;
		qas->pending = 0;
		qas->nr_periods = 0;
		qas->nr_overruns = 0;
		qas->nr_period_ends = 0;
		qas->nr_mandatory_misses = 0;
		memset(qas->parts, 0, sizeof(qas->parts));
		qas->active = 1;
		bvt_in_plan_link(p, &spare);
		WRITE_ONCE(p->bvt.in_plan->qas, qas);
		new = NULL;
	}
	task_rq_unlock(rq, p, &rf);
	/*
	 * Stored, then PF_EXITING looked at: pairs with
	 * bvt_plan_task_exit(), which runs once PF_EXITING is set and then
	 * looks for a set.  A thread that began to exit meanwhile may not
	 * have seen this one: it is taken back, and the set never outlives
	 * the thread's exit.
	 */
	smp_mb();
	if (!ret && READ_ONCE(p->flags) & PF_EXITING) {
		rq = task_rq_lock(p, &rf);
		bvt_qas_stop(rq, p);
		WRITE_ONCE(p->bvt.in_plan->qas, NULL);
		task_rq_unlock(rq, p, &rf);
		bvt_qas_free(p, qas);
		ret = -ESRCH;
	}
	kfree(new);
	return ret;
}

/* BVT_CTL_QAS_RESERVE: add a part to @p's set. */
static long bvt_qas_reserve(struct task_struct *p,
			    struct sched_bvt_qas_part *arg)
{
	bool mandatory = arg->flags & SCHED_BVT_QAS_MANDATORY;
	struct sched_bvt_rsv r = { };
	struct bvt_qas *qas;
	struct rq_flags rf;
	unsigned int i;
	struct rq *rq;
	u64 sum = 0;
	long ret;

	/* What only the kernel writes is 0 from the caller, for later use. */
	if (arg->flags & ~SCHED_BVT_QAS_MANDATORY || arg->__reserved ||
	    arg->index || arg->cpu || arg->granted_amount ||
	    arg->granted_period ||
	    arg->amount < SCHED_BVT_RSV_AMOUNT_MIN ||
	    arg->priority > SCHED_BVT_QAS_PRIO_MAX ||
	    (mandatory && arg->priority))
		return -EINVAL;

	guard(mutex)(&bvt_qas_mutex);
	qas = bvt_qas_of(p);
	if (!qas || !qas->active)
		return -ENOENT;
	if (qas->started)
		return -EBUSY;
	if (qas->nr_parts == SCHED_BVT_QAS_PARTS_MAX)
		return -ENOSPC;
	/* Every sum of times from user space is checked for overflow. */
	for (i = 0; i < qas->nr_parts; i++)
		if (check_add_overflow(sum, qas->parts[i].amount, &sum))
			return -EINVAL;
	if ((mandatory && qas->nr_parts) ||
	    check_add_overflow(sum, arg->amount, &sum) || sum > qas->period)
		return -EINVAL;

	arg->cpu = -1;
	arg->granted_amount = 0;
	arg->granted_period = 0;
	if (mandatory) {
		r.amount = arg->amount;
		r.period = qas->period;
		ret = bvt_rsv_reserve(p, &r, qas->period);
		if (ret)
			return ret;
		arg->cpu = r.cpu;
		arg->granted_amount = r.amount;
		arg->granted_period = r.period;
	}

	rq = task_rq_lock(p, &rf);
	/*
	 * A change of policy may have ended the set meanwhile, or BEGIN
	 * (which takes no mutex) started it.
	 */
	ret = !qas->active ? -ESRCH : qas->started ? -EBUSY : 0;
	if (!ret) {
		arg->index = qas->nr_parts;
		qas->parts[qas->nr_parts].amount = arg->amount;
		qas->parts[qas->nr_parts].rank = mandatory ? 0 :
						 1 + arg->priority;
		qas->nr_parts++;
	}
	task_rq_unlock(rq, p, &rf);
	if (ret && mandatory)
		bvt_qas_end(p, qas);
	return ret;
}

/* The first BVT_CTL_QAS_BEGIN: the first period starts now. */
static void bvt_qas_start(struct rq *rq, struct task_struct *p)
{
	struct bvt_qas *qas = bvt_qas_of(p);
	u64 now = ktime_get_ns();

	qas->started = 1;
	qas->begun = 1;
	/* No period ended: none had begun. */
	qas->part = qas->nr_parts;
	update_rq_clock(rq);
	p->sched_class->update_curr(rq);
	bvt_qas_new_period(rq, p, now, 1);
	/*
	 * On the thread's CPU, where its periods are scheduled: not moved to
	 * a housekeeping CPU, as a timer armed on a nohz_full one would be,
	 * which may be idle and wake late.
	 */
	hrtimer_start(&qas->timer, ns_to_ktime(now + qas->period),
		      HRTIMER_MODE_ABS_PINNED_HARD);
}

/*
 * BVT_CTL_QAS_BEGIN, for the caller: the number of its periods that were
 * lost since the last call, or a -errno.
 */
static long bvt_qas_begin(void)
{
	struct task_struct *p = current;
	struct bvt_qas *qas = bvt_qas_of(p);
	struct rq_flags rf;
	struct rq *rq;
	long ret = 0;
	u64 seq;

	if (!qas)
		return -ENOENT;
	rq = task_rq_lock(p, &rf);
	if (!qas->active || !qas->nr_parts) {
		ret = -ENOENT;
	} else if (!qas->started) {
		bvt_qas_start(rq, p);
	} else if (qas->seq != qas->begun) {
		/* Late: that period has run for a while already. */
		ret = qas->seq - qas->begun - 1;
		qas->begun = qas->seq;
	} else {
		/* What is left of this period is let go. */
		if (qas->part < qas->nr_parts) {
			trace_sched_bvt_qas_part(p, qas->part, false);
			qas->part = qas->nr_parts;
			bvt_qas_unqueue(rq, qas);
		}
		qas->waiting = 1;
		seq = qas->seq;
		task_rq_unlock(rq, p, &rf);

		ret = bvt_qas_wait(qas, seq, TASK_INTERRUPTIBLE);
		rq = task_rq_lock(p, &rf);
		qas->waiting = 0;
		if (!ret && (!qas->active || !qas->started)) {
			ret = -ENOENT;
		} else if (!ret) {
			ret = qas->seq - qas->begun - 1;
			qas->begun = qas->seq;
		}
	}
	task_rq_unlock(rq, p, &rf);
	return ret;
}

/* BVT_CTL_QAS_NEXT, for the caller: the index of its new part. */
static long bvt_qas_next(void)
{
	struct task_struct *p = current;
	struct bvt_qas *qas = bvt_qas_of(p);
	struct rq_flags rf;
	struct rq *rq;
	long ret;

	if (!qas)
		return -ENOENT;
	rq = task_rq_lock(p, &rf);
	if (!qas->active || !qas->started) {
		ret = -ENOENT;
	} else {
		if (qas->part < qas->nr_parts) {
			update_rq_clock(rq);
			p->sched_class->update_curr(rq);
			bvt_qas_next_part(rq, p, false);
		}
		ret = qas->part;
	}
	task_rq_unlock(rq, p, &rf);
	return ret;
}

/*
 * BVT_CTL_QAS_GET: @p's set and its counters.  Under @p's rq lock alone,
 * which a set's state and the link to it are changed under: any reader
 * of /proc/<pid>/sched comes here, and waits for no mutex.
 */
static long bvt_qas_get(struct task_struct *p, struct sched_bvt_qas *arg)
{
	struct bvt_qas *qas;
	struct rq_flags rf;
	struct rq *rq;

	rq = task_rq_lock(p, &rf);
	qas = bvt_qas_of(p);
	if (!qas || !qas->active) {
		task_rq_unlock(rq, p, &rf);
		return -ENOENT;
	}
	arg->flags = qas->flags;
	arg->period = qas->period;
	arg->signal = qas->signal;
	arg->nr_parts = qas->nr_parts;
	arg->part = qas->started ? qas->part : qas->nr_parts;
	arg->period_start = qas->period_start;
	arg->nr_periods = qas->nr_periods;
	arg->nr_overruns = qas->nr_overruns;
	arg->nr_period_ends = qas->nr_period_ends;
	arg->nr_mandatory_misses = qas->nr_mandatory_misses;
	task_rq_unlock(rq, p, &rf);
	return 0;
}

/* /proc/<pid>/sched: the thread's set and its counters. */
void bvt_qas_proc_show(struct task_struct *p, struct seq_file *m)
{
	struct sched_bvt_qas q = { };

	if (likely(!bvt_qas_of(p)) || bvt_qas_get(p, &q))
		return;
	bvt_seq_ms(m, "bvt.qas.period", q.period);
	seq_printf(m, "%-45s:%21u\n", "bvt.qas.flags", q.flags);
	seq_printf(m, "%-45s:%21u\n", "bvt.qas.nr_parts", q.nr_parts);
	seq_printf(m, "%-45s:%21llu\n", "bvt.qas.nr_periods", q.nr_periods);
	seq_printf(m, "%-45s:%21llu\n", "bvt.qas.nr_overruns", q.nr_overruns);
	seq_printf(m, "%-45s:%21llu\n", "bvt.qas.nr_period_ends",
		   q.nr_period_ends);
	seq_printf(m, "%-45s:%21llu\n", "bvt.qas.nr_mandatory_misses",
		   q.nr_mandatory_misses);
}

long bvt_ctl_qas(unsigned int op, pid_t pid, void __user *uarg)
{
	union {
		struct sched_bvt_qas qas;
		struct sched_bvt_qas_part part;
	} arg = { };
	struct task_struct *p;
	u32 usize = 0;
	long ret;

	/* Until bvt_rsv_init() has run. */
	if (unlikely(!READ_ONCE(bvt_rsv_ready)))
		return -ENOMEM;
	/* The caller's own periods. */
	if (op == BVT_CTL_QAS_BEGIN || op == BVT_CTL_QAS_NEXT) {
		if ((pid && pid != task_pid_vnr(current)) || uarg)
			return -EINVAL;
		return op == BVT_CTL_QAS_BEGIN ? bvt_qas_begin() :
						 bvt_qas_next();
	}

	if (op == BVT_CTL_QAS_RESERVE)
		ret = bvt_ctl_copy_in(&arg.part, sizeof(arg.part), uarg, &usize,
				      SCHED_BVT_QAS_PART_SIZE_VER0);
	else if (op != BVT_CTL_QAS_END)
		ret = bvt_ctl_copy_in(&arg.qas, sizeof(arg.qas), uarg, &usize,
				      SCHED_BVT_QAS_SIZE_VER0);
	else
		ret = 0;
	if (ret)
		return ret;
	scoped_guard(rcu) {
		p = pid ? find_task_by_vpid(pid) : current;
		if (!p)
			return -ESRCH;
		get_task_struct(p);
	}
	/* A set is a reservation: asked for as one (bvt_ctl_rsv()). */
	if (op != BVT_CTL_QAS_GET) {
		ret = -EPERM;
		if (!capable(CAP_SYS_NICE) &&
		    !(op == BVT_CTL_QAS_END && p == current))
			goto put;
		ret = security_task_setscheduler(p);
	} else {
		ret = security_task_getscheduler(p);
	}
	if (ret)
		goto put;
	switch (op) {
	case BVT_CTL_QAS_PERIOD:
		ret = p->policy == SCHED_BVT ?
		      bvt_qas_set_period(p, &arg.qas) : -EINVAL;
		break;
	case BVT_CTL_QAS_RESERVE:
		bvt_rsv_flush();
		ret = bvt_qas_reserve(p, &arg.part);
		if (!ret)
			ret = bvt_ctl_copy_out(uarg, &arg.part, usize,
					       sizeof(arg.part));
		break;
	case BVT_CTL_QAS_END:
		scoped_guard(mutex, &bvt_qas_mutex) {
			ret = -ENOENT;
			if (bvt_qas_of(p) && bvt_qas_of(p)->active) {
				bvt_qas_end(p, bvt_qas_of(p));
				ret = 0;
			}
		}
		break;
	default:
		ret = bvt_qas_get(p, &arg.qas);
		if (!ret)
			ret = bvt_ctl_copy_out(uarg, &arg.qas, usize,
					       sizeof(arg.qas));
	}
put:
	put_task_struct(p);
	return ret;
}
