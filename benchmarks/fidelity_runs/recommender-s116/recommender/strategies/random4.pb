
search-36b4463f38fd@
'recommender/user_embedding/embeddings:0
198.18.7.12:CPU:0/
'recommender/item_embedding/embeddings:0ğ
recommender/hidden/kernel:0"1,16*=
"recommender/hidden/kernel/part_0:0
198.18.7.12:CPU:0*=
"recommender/hidden/kernel/part_1:0
198.18.7.13:CPU:0*/
"recommender/hidden/kernel/part_2:0	€*(
"recommender/hidden/kernel/part_3:0**
"recommender/hidden/kernel/part_4:0*=
"recommender/hidden/kernel/part_5:0
198.18.7.11:CPU:0*;
"recommender/hidden/kernel/part_6:0
198.18.7.11:CPU:0*,
"recommender/hidden/kernel/part_7:0*-
"recommender/hidden/kernel/part_8:0€*;
"recommender/hidden/kernel/part_9:0
198.18.7.11:CPU:0*+
#recommender/hidden/kernel/part_10:0*+
#recommender/hidden/kernel/part_11:0*<
#recommender/hidden/kernel/part_12:0
198.18.7.11:CPU:0*+
#recommender/hidden/kernel/part_13:0*<
#recommender/hidden/kernel/part_14:0
198.18.7.11:CPU:0*-
#recommender/hidden/kernel/part_15:0ƒ
recommender/hidden/bias:0"2*9
 recommender/hidden/bias/part_0:0
198.18.7.12:CPU:0*(
 recommender/hidden/bias/part_1:0Ì
recommender/score/kernel:0"16,1*.
!recommender/score/kernel/part_0:0	€*<
!recommender/score/kernel/part_1:0
198.18.7.13:CPU:0*:
!recommender/score/kernel/part_2:0
198.18.7.11:CPU:0*,
!recommender/score/kernel/part_3:0€*'
!recommender/score/kernel/part_4:0*.
!recommender/score/kernel/part_5:0	€*.
!recommender/score/kernel/part_6:0	€*<
!recommender/score/kernel/part_7:0
198.18.7.13:CPU:0*)
!recommender/score/kernel/part_8:0*<
!recommender/score/kernel/part_9:0
198.18.7.11:CPU:0**
"recommender/score/kernel/part_10:0**
"recommender/score/kernel/part_11:0*/
"recommender/score/kernel/part_12:0	€*,
"recommender/score/kernel/part_13:0**
"recommender/score/kernel/part_14:0*=
"recommender/score/kernel/part_15:0
198.18.7.13:CPU:0"
recommender/score/bias:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search