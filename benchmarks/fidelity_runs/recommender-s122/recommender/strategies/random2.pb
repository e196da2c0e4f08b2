
search-71e6bd8c72a1¶
'recommender/user_embedding/embeddings:0"8,1*6
.recommender/user_embedding/embeddings/part_0:0*I
.recommender/user_embedding/embeddings/part_1:0
198.18.7.11:CPU:0*8
.recommender/user_embedding/embeddings/part_2:0*G
.recommender/user_embedding/embeddings/part_3:0
198.18.7.11:CPU:0*6
.recommender/user_embedding/embeddings/part_4:0*I
.recommender/user_embedding/embeddings/part_5:0
198.18.7.11:CPU:0*4
.recommender/user_embedding/embeddings/part_6:0*G
.recommender/user_embedding/embeddings/part_7:0
198.18.7.12:CPU:0İ
'recommender/item_embedding/embeddings:0"3,1*;
.recommender/item_embedding/embeddings/part_0:0	€*6
.recommender/item_embedding/embeddings/part_1:0*8
.recommender/item_embedding/embeddings/part_2:0×
recommender/hidden/kernel:0"8,1*=
"recommender/hidden/kernel/part_0:0
198.18.7.11:CPU:0*;
"recommender/hidden/kernel/part_1:0
198.18.7.12:CPU:0**
"recommender/hidden/kernel/part_2:0*=
"recommender/hidden/kernel/part_3:0
198.18.7.11:CPU:0*/
"recommender/hidden/kernel/part_4:0	€*-
"recommender/hidden/kernel/part_5:0€*-
"recommender/hidden/kernel/part_6:0€*=
"recommender/hidden/kernel/part_7:0
198.18.7.11:CPU:0û
recommender/hidden/bias:0"16*9
 recommender/hidden/bias/part_0:0
198.18.7.13:CPU:0*(
 recommender/hidden/bias/part_1:0*&
 recommender/hidden/bias/part_2:0*-
 recommender/hidden/bias/part_3:0	€*9
 recommender/hidden/bias/part_4:0
198.18.7.12:CPU:0*&
 recommender/hidden/bias/part_5:0*;
 recommender/hidden/bias/part_6:0
198.18.7.11:CPU:0*9
 recommender/hidden/bias/part_7:0
198.18.7.11:CPU:0*9
 recommender/hidden/bias/part_8:0
198.18.7.11:CPU:0*;
 recommender/hidden/bias/part_9:0
198.18.7.11:CPU:0*:
!recommender/hidden/bias/part_10:0
198.18.7.12:CPU:0*.
!recommender/hidden/bias/part_11:0	€*<
!recommender/hidden/bias/part_12:0
198.18.7.11:CPU:0*:
!recommender/hidden/bias/part_13:0
198.18.7.11:CPU:0*:
!recommender/hidden/bias/part_14:0
198.18.7.13:CPU:0*)
!recommender/hidden/bias/part_15:0
recommender/score/kernel:0"2,1*.
!recommender/score/kernel/part_0:0	€*:
!recommender/score/kernel/part_1:0
198.18.7.12:CPU:03
recommender/score/bias:0
198.18.7.11:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search